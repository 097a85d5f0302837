import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';

import { closeGracefully, listen } from '../src/http-listener.js';

describe('listen', () => {
  it('when an API starts listening, then its server cuts off slow clients (20 s for the headers, 5 min for a request)', async () => {
    // Act
    const server = await listen(
      (_req, res) => {
        res.end();
      },
      '127.0.0.1',
      0,
    );

    // Assert
    try {
      expect(server.headersTimeout).toBe(20_000);
      expect(server.requestTimeout).toBe(300_000);
    } finally {
      await closeGracefully(server, 1_000);
    }
  });
});

describe('closeGracefully', () => {
  it('when a kept-alive request is in flight at the stop, then it is answered and its connection closed once idle, well before the grace ends', async () => {
    // Arrange: a request that takes 300 ms, on a keep-alive connection.
    let handling: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (handling = resolve));
    const server = await listen(
      (_req, res) => {
        handling();
        setTimeout(() => res.end('answered'), 300);
      },
      '127.0.0.1',
      0,
    );
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // Every 'data' event comes before 'close': the client has read all it was sent once it fires.
    const closed = new Promise<void>((resolve) =>
      socket.on('close', () => {
        resolve();
      }),
    );
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
    // The server is handling the request when the stop begins.
    await inFlight;

    // Act
    const started = Date.now();
    await closeGracefully(server, 20_000);
    const stoppedMs = Date.now() - started;

    // Assert
    await closed;
    expect(received).toContain('answered');
    expect(stoppedMs).toBeLessThan(10_000);
  });
});
