import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { createApiServer, DEFAULT_API_SERVER_TIMEOUTS } from '../src/api-server.js';
import { jsonBody } from '../src/json-body.js';
import { sendSuccess } from '../src/send-success.js';
import { exchange } from '@trustpoint/test-doubles/raw-exchange';
import { trickleRequest } from '@trustpoint/test-doubles/slow-client';
import { testApp } from './support/test-app.js';

const TIMEOUTS = {
  headersTimeoutMs: 600,
  requestTimeoutMs: 1_200,
  keepAliveTimeoutMs: 1_000,
  checkIntervalMs: 100,
};

function echoApp() {
  return testApp((app) => {
    app.get('/ping', (_req, res) => {
      sendSuccess(res, 200, 'pong', {});
    });
    app.get('/later', (_req, res) => {
      setTimeout(() => {
        sendSuccess(res, 200, 'later', {});
      }, 50);
    });
    app.post('/echo', jsonBody(), (req, res) => {
      sendSuccess(res, 200, 'echo', req.body as object);
    });
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('createApiServer', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('when no timeouts are given, then the headers have 20 s, a request 5 min, idle connections 65 s, checked every second', () => {
    // Act
    server = createApiServer(echoApp());

    // Assert
    expect(DEFAULT_API_SERVER_TIMEOUTS.headersTimeoutMs).toBe(20_000);
    expect(server.headersTimeout).toBe(20_000);
    expect(server.requestTimeout).toBe(300_000);
    expect(server.keepAliveTimeout).toBe(65_000);
  });

  it('when a kept-alive connection idles longer than the headers timeout but within keep-alive, then it says how long it is kept and its next request is answered on it', async () => {
    // Arrange: keep-alive well beyond the headers timeout, as the defaults are (65 s, 20 s).
    server = createApiServer(echoApp(), { ...TIMEOUTS, keepAliveTimeoutMs: 4_000 });
    const port = await listening(server);
    const socket = connect({ port, host: '127.0.0.1' });
    const received: string[] = [];
    let closed = false;
    socket.on('data', (chunk: Buffer) => received.push(chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    const ping = 'GET /ping HTTP/1.1\r\nHost: a\r\n\r\n';
    socket.write(ping);
    await expect.poll(() => received.join(''), { timeout: 5_000 }).toContain('pong');
    const first = received.join('');

    // Act: idle for twice the headers timeout, then a second request on the same connection.
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUTS.headersTimeoutMs));
    received.length = 0;
    socket.write(ping);

    // Assert
    expect(first).toMatch(/\r\nKeep-Alive: timeout=4\r\n/i);
    await expect.poll(() => received.join(''), { timeout: 5_000 }).toContain('pong');
    expect(closed).toBe(false);
    socket.destroy();
  });

  it('when a client trickles its headers, then 408 and the connection closed at the headers timeout, while others are served', async () => {
    // Arrange
    server = createApiServer(echoApp(), TIMEOUTS);
    const port = await listening(server);
    const request = `GET /ping HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(200)}\r\n\r\n`;

    // Act
    const slow = trickleRequest(port, request, { byteIntervalMs: 50, giveUpMs: 5_000 });
    const startedAt = Date.now();
    const other = await fetch(`http://127.0.0.1:${String(port)}/ping`);
    const otherMs = Date.now() - startedAt;
    const result = await slow;

    // Assert: the other client was answered while the slow one still held its connection (not
    // after it: a time in ms would measure the machine's load, not the server), and the slow one
    // was closed by the server at the headers timeout, long before it would have given up itself.
    expect(other.status).toBe(200);
    expect(otherMs).toBeLessThan(result.closedAfterMs);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.sentBytes).toBeLessThan(request.length);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(500);
    expect(result.closedAfterMs).toBeLessThan(4_000);
  });

  it('when a client trickles its body, then 408 and the connection closed at the request timeout', async () => {
    // Arrange
    server = createApiServer(echoApp(), TIMEOUTS);
    const port = await listening(server);
    const body = JSON.stringify({ text: 'x'.repeat(200) });
    const head = `POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${String(body.length)}\r\n\r\n`;

    // Act: the headers arrive at once, the body a byte every 50 ms.
    const fast = await fetch(`http://127.0.0.1:${String(port)}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const trickled = await trickleRequest(port, body, {
      sentAtOnce: head,
      byteIntervalMs: 50,
      giveUpMs: 5_000,
    });

    // Assert: sent at once, it is answered; trickled, it is cut off.
    expect(fast.status).toBe(200);
    expect(trickled.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(trickled.sentBytes).toBeLessThan(body.length);
    expect(trickled.closedAfterMs).toBeLessThan(4_000);
  });

  it.each([
    [
      'Content-Length and Transfer-Encoding both',
      'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['two different Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['a Content-Length that is not a number', 'Content-Length: +2\r\n\r\n{}'],
    ['a chunked body that is not chunked', 'Transfer-Encoding: chunked\r\n\r\n{"a":1}\r\n\r\n'],
  ])(
    'when a request has %s, then 400 with the spec error body and the connection closed',
    async (_case, rest) => {
      // Arrange
      server = createApiServer(echoApp(), TIMEOUTS);
      const port = await listening(server);

      // Act: Node's parser refuses it before the app sees it.
      const answer = await trickleRequest(port, '', {
        sentAtOnce: `POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${rest}`,
        byteIntervalMs: 10,
        giveUpMs: 5_000,
      });

      // Assert
      const [head = '', body = ''] = answer.received.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toContain('Content-Type: application/json; charset=utf-8');
      expect(JSON.parse(body)).toEqual({
        statusCode: 400,
        type: 'Validation Error',
        message: 'Request parameters are wrong, check requirements',
        errors: [{ field: 'request', error: 'Not a well-formed HTTP/1.1 request' }],
      });
    },
  );

  it('when bytes that are no request follow a whole one, then that request is still answered before the close', async () => {
    // Arrange
    server = createApiServer(echoApp(), TIMEOUTS);
    const port = await listening(server);

    // Act: a body sent without a length is parsed as the next request, which is malformed.
    const answer = await trickleRequest(port, '', {
      sentAtOnce: 'GET /later HTTP/1.1\r\nHost: localhost\r\n\r\n{"not":"a request"}\r\n\r\n',
      byteIntervalMs: 10,
      giveUpMs: 5_000,
    });

    // Assert
    expect(answer.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.received).toContain('"message":"later"');
  });

  const REFUSED_BY_THE_PARSER = [
    {
      case: 'a 100 KB URL',
      head: `GET /ping?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
      status: 431,
      body: {
        statusCode: 431,
        type: 'Request Header Fields Too Large Error',
        message:
          'The request line and headers exceed the 16 KiB limit, shorten the URL or the headers',
      },
    },
    {
      case: 'two Content-Length headers',
      head: 'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      status: 400,
      body: {
        statusCode: 400,
        type: 'Validation Error',
        message: 'Request parameters are wrong, check requirements',
        errors: [{ field: 'request', error: 'Not a well-formed HTTP/1.1 request' }],
      },
    },
  ];

  for (const connection of ['a fresh connection', 'a kept-alive connection']) {
    it.each(REFUSED_BY_THE_PARSER)(
      `when $case arrives on ${connection}, then its status with the spec error body, readable before the close`,
      async ({ head, status, body }) => {
        // Arrange
        server = createApiServer(echoApp(), TIMEOUTS);
        const port = await listening(server);
        const warmUp =
          connection === 'a kept-alive connection'
            ? { warmUp: Buffer.from('HEAD /ping HTTP/1.1\r\nHost: localhost\r\n\r\n') }
            : {};

        // Act: on a kept-alive connection the socket has already written the first answer.
        const answer = await exchange(
          port,
          {
            head: Buffer.from(head, 'latin1'),
            body: Buffer.alloc(0),
            endAfterWriting: false,
            headMethod: false,
            ...warmUp,
          },
          5_000,
        );

        // Assert
        expect(answer?.status).toBe(status);
        expect(answer?.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer?.headers.connection).toBe('close');
        expect(JSON.parse(answer?.body.toString('utf8') ?? '')).toEqual(body);
      },
    );
  }
  it("when an Express app is served, then its requests and responses are born with the app's prototypes, and a plain listener gets Node's", async () => {
    // Arrange: a listener that runs before the app sees each request as Node made it.
    const app = echoApp();
    server = createApiServer(app);
    const born: { request: unknown; response: unknown }[] = [];
    server.prependListener('request', (request, response) => {
      born.push({
        request: Object.getPrototypeOf(request),
        response: Object.getPrototypeOf(response),
      });
    });
    const port = await listening(server);
    const plain = createApiServer((_request, response) => {
      born.push({
        request: Object.getPrototypeOf(_request),
        response: Object.getPrototypeOf(response),
      });
      response.end('plain');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));

    // Act
    const echoed = await fetch(`http://127.0.0.1:${String(port)}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kept: true }),
    });
    const answered = await fetch(
      `http://127.0.0.1:${String((plain.address() as AddressInfo).port)}/`,
    );
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));

    // Assert: Express finds its prototypes already set (it changed them on every request, which
    // costs V8 what it knew of the objects), and serves the request as before.
    expect(born[0]).toEqual({ request: app.request, response: app.response });
    expect(echoed.status).toBe(200);
    expect(await echoed.json()).toMatchObject({ data: { kept: true } });
    expect(born[1]).toEqual({
      request: IncomingMessage.prototype,
      response: ServerResponse.prototype,
    });
    expect(await answered.text()).toBe('plain');
  });
});
