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
    const server = await listen(
      (_req, res) => {
        setTimeout(() => res.end('answered'), 300);
      },
      '127.0.0.1',
      0,
    );
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
    // Well within the request's 300 ms: it is in flight when the stop begins.
    await new Promise((resolve) => setTimeout(resolve, 100));

    // Act
    const started = Date.now();
    await closeGracefully(server, 20_000);
    const stoppedMs = Date.now() - started;

    // Assert
    expect(received).toContain('answered');
    await expect.poll(() => closed).toBe(true);
    expect(stoppedMs).toBeLessThan(10_000);
  });
});
