import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTrustpointClient, TrustpointConnectionError } from '../src/index.js';
import { retryingFetch } from '../src/retries.js';

/** A service that takes every connection and never says a word, on a free local port. */
async function startSilentService() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    connections: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}

describe('retryingFetch', () => {
  it('when a creation is answered 503 with Retry-After (a busy network), then it is sent again with the same Idempotency-Key once that time has passed, not at its own backoff', async () => {
    // Arrange: the service's answers, as a busy network's 503 then the creation.
    const sent: { at: number; key: string | null }[] = [];
    const answers = [
      new Response(JSON.stringify({ statusCode: 503 }), {
        status: 503,
        headers: { 'Retry-After': '1' },
      }),
      new Response(JSON.stringify({ statusCode: 202 }), { status: 202 }),
    ];
    const send = retryingFetch(
      (request) => {
        sent.push({ at: Date.now(), key: request.headers.get('idempotency-key') });
        return Promise.resolve(answers.shift() ?? new Response(null, { status: 500 }));
      },
      { baseDelayMs: 10 },
    );

    // Act
    const response = await send(
      new Request('http://service.test/cert/v2/certificates', { method: 'POST', body: '{}' }),
    );

    // Assert
    expect(response.status).toBe(202);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('when the service accepts the connection and never answers, then the call fails once its timeoutMs has passed, retries included, with a TimeoutError saying how long it waited', async () => {
    // Arrange: each attempt would wait for ever; the deadline is the call's, not each attempt's.
    const service = await startSilentService();
    const client = createTrustpointClient({
      certUrl: service.url,
      retry: { timeoutMs: 700, baseDelayMs: 100 },
    });
    const started = Date.now();

    try {
      // Act
      const failure = await client.cert.listCertificates().then(
        () => undefined,
        (error: unknown) => error,
      );

      // Assert
      const elapsed = Date.now() - started;
      expect(failure).toBeInstanceOf(TrustpointConnectionError);
      const cause = (failure as TrustpointConnectionError).cause as Error;
      expect(cause.name).toBe('TimeoutError');
      expect(cause.message).toBe('no answer within 0.7 s');
      expect(elapsed).toBeGreaterThanOrEqual(650);
      // Far below what a retried attempt would take (it never ends), with room for a loaded host.
      expect(elapsed).toBeLessThan(10_000);
      expect(service.connections()).toBeGreaterThanOrEqual(1);
    } finally {
      await service.close();
    }
  }, 30_000);
});
