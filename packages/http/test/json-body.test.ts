import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { jsonBody, rawJsonOf } from '../src/json-body.js';
import { sendSuccess } from '../src/send-success.js';
import { capturedLogger } from './support/captured-logger.js';
import { testApp } from './support/test-app.js';

function echoApp(limit?: number) {
  return testApp((app) => {
    app.post('/echo', jsonBody(limit === undefined ? {} : { limit }), (req, res) => {
      sendSuccess(res, 200, 'Echo', req.body);
    });
  });
}

describe('jsonBody', () => {
  it('when the body is JSON within the limit, then the route sees it parsed', async () => {
    // Arrange
    const app = echoApp();

    // Act
    const response = await request(app).post('/echo').send({ name: 'report' });

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ statusCode: 200, message: 'Echo', data: { name: 'report' } });
  });

  it('when the JSON is malformed, then 400 with one error on the body', async () => {
    // Arrange
    const app = echoApp();

    // Act
    const response = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send('{"name": ');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      statusCode: 400,
      type: 'Validation Error',
      message: 'Request parameters are wrong, check requirements',
      errors: [{ field: 'body', error: 'Body is not valid JSON' }],
    });
  });

  it.each([
    ['null', 'Body must be a JSON object'],
    [' "text"', 'Body must be a JSON object'],
    ['12', 'Body must be a JSON object'],
    ['\n true ', 'Body must be a JSON object'],
    ['nul', 'Body is not valid JSON'],
    ['"open', 'Body is not valid JSON'],
  ])('when the body is %j, then 400 on the body: %s', async (text, error) => {
    // Arrange
    const app = echoApp();

    // Act
    const response = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send(text);

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, errors: [{ field: 'body', error }] });
  });

  it.each([
    ['{"name":"Forged","name":"Diploma"}', 'body.name'],
    ['{"name":"Diploma","\\u006eame":"Forged"}', 'body.name'],
    ['{"content":{"items":[{"a":1},{"b":2,"b":3}]}}', 'body.content.items[1].b'],
    ['{"content":{"grade a":"A","grade a":"F"}}', 'body.content["grade a"]'],
  ])(
    'when the JSON %s names a member twice, then 400 naming it and the route never runs',
    async (text, field) => {
      // Arrange
      let reached = false;
      const app = testApp((app) => {
        app.post('/echo', jsonBody(), (_req, res) => {
          reached = true;
          sendSuccess(res, 200, 'Echo', {});
        });
      });

      // Act
      const response = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .send(text);

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        errors: [{ field, error: expect.stringContaining('Given twice') as unknown }],
      });
      expect(reached).toBe(false);
    },
  );

  it('when the same name appears in two different objects, then the body is taken', async () => {
    // Arrange
    const app = echoApp();
    const body = { name: 'Diploma', content: { name: 'Jane', nested: { name: 'x' } } };

    // Act
    const response = await request(app).post('/echo').send(body);

    // Assert
    expect(response.status).toBe(200);
    expect((response.body as { data: unknown }).data).toEqual(body);
  });

  it('when the body exceeds the limit, then 413', async () => {
    // Arrange
    const app = echoApp(100);

    // Act
    const response = await request(app)
      .post('/echo')
      .send({ text: 'x'.repeat(200) });

    // Assert
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      statusCode: 413,
      type: 'Payload Too Large Error',
      message: 'The request payload exceeds the configured limit',
      errors: [
        {
          field: 'body',
          error: 'A JSON body may be at most 100 bytes',
        },
      ],
    });
  });

  it('when the body of a certificate creation exceeds the limit, then 413 says files go as multipart', async () => {
    // Arrange: the one route that takes files too.
    const app = testApp((app) => {
      app.post('/cert/v2/certificates', jsonBody({ limit: 100 }), (req, res) => {
        sendSuccess(res, 200, 'Echo', req.body);
      });
      app.post('/cert/v2/trustpoints/verification', jsonBody({ limit: 100 }), (req, res) => {
        sendSuccess(res, 200, 'Echo', req.body);
      });
    });

    // Act
    const creation = await request(app)
      .post('/cert/v2/certificates?type=content')
      .send({ text: 'x'.repeat(200) });
    const verification = await request(app)
      .post('/cert/v2/trustpoints/verification')
      .send({ text: 'x'.repeat(200) });

    // Assert
    expect([creation.status, verification.status]).toEqual([413, 413]);
    expect((creation.body as { errors: unknown }).errors).toEqual([
      {
        field: 'body',
        error: 'A JSON body may be at most 100 bytes; send files as multipart (type=file)',
      },
    ]);
    expect((verification.body as { errors: unknown }).errors).toEqual([
      { field: 'body', error: 'A JSON body may be at most 100 bytes' },
    ]);
  });

  it('when no limit is given, then a body just over 1 MiB is refused', async () => {
    // Arrange
    const app = echoApp();
    const body = JSON.stringify({ text: 'x'.repeat(1024 * 1024) });

    // Act
    const response = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send(body);

    // Assert
    expect(response.status).toBe(413);
  });

  it.each([
    ['utf-16le', Buffer.from('{"a":1}', 'utf16le')],
    ['utf-7', Buffer.from('{"+AGE-":1}', 'latin1')],
    ['UTF-32', Buffer.from('{}', 'latin1')],
  ])(
    'when a body comes in %s, which the parser would decode but the raw bytes are read as UTF-8, then 400 on the body',
    async (charset, body) => {
      const response = await request(echoApp())
        .post('/echo')
        .set('Content-Type', `application/json; charset=${charset}`)
        .send(body);

      expect(response.status).toBe(400);
      expect(response.body).toHaveProperty('errors', [
        { field: 'body', error: 'Charset is not supported, use utf-8' },
      ]);
    },
  );

  it('when the body is UTF-8, said or not, then it is parsed and its bytes are kept for the route', async () => {
    const seen: (string | undefined)[] = [];
    const app = testApp((server) => {
      server.use(jsonBody());
      server.post('/raw', (req, res) => {
        seen.push(rawJsonOf(req)?.toString('utf8'));
        sendSuccess(res, 200, 'ok', req.body as object);
      });
    });

    const said = await request(app)
      .post('/raw')
      .set('Content-Type', 'application/json; charset=UTF-8')
      .send('{"a":"é"}');
    const unsaid = await request(app)
      .post('/raw')
      .set('Content-Type', 'application/json')
      .send('{"b":2}');

    expect([said.status, unsaid.status]).toEqual([200, 200]);
    expect(seen).toEqual(['{"a":"é"}', '{"b":2}']);
  });

  it('when the body is not valid UTF-8 (a lone 0xFF), then 400 on the body, never the text with U+FFFD in its place', async () => {
    // Arrange
    const app = echoApp();
    const bytes = Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);

    // Act
    const response = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      // The bytes as they are, not superagent's JSON of a Buffer.
      .serialize((body: unknown) => body as string)
      .send(bytes);

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toHaveProperty('errors', [
      { field: 'body', error: 'Body is not valid UTF-8' },
    ]);
  });

  it('when the charset is not supported, then 400 on the body', async () => {
    // Arrange
    const app = echoApp();

    // Act
    const response = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json; charset=latin-9000')
      .send('{}');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body).toHaveProperty('errors', [
      { field: 'body', error: 'Charset is not supported, use utf-8' },
    ]);
  });

  it.each(['deflate', 'gzip', 'br'])(
    'when a %s body does not decompress, then 400 on the body, not a 500',
    async (encoding) => {
      // Arrange
      const app = echoApp();

      // Act
      const response = await request(app)
        .post('/echo')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('{"not": "compressed"}');

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toHaveProperty('errors', [
        { field: 'body', error: 'Body does not decode with its Content-Encoding' },
      ]);
    },
  );

  it('when the client closes the connection before its body ends, then nothing is logged as an error and the route never runs', async () => {
    // Arrange: a real server, so that the connection is really closed half way through the body.
    const { logger, entries } = capturedLogger();
    let reached = false;
    const app = testApp((routes) => {
      routes.post('/echo', jsonBody(), (_req, res) => {
        reached = true;
        res.sendStatus(204);
      });
    }, logger);
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const { port } = server.address() as AddressInfo;

    try {
      // Act: 100 bytes announced, 7 sent, then gone.
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a": 1',
      );
      const [serverSide] = await accepted;
      socket.destroy();
      // The server has seen the connection close; its handlers ran on that event.
      await new Promise((resolve) => serverSide.on('close', resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));

      // Assert
      expect(reached).toBe(false);
      expect(entries().filter((entry) => (entry.level as number) >= 50)).toEqual([]);
    } finally {
      server.close();
    }
  });
});
