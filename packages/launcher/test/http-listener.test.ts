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
