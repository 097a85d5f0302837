import { describe, expect, it } from 'vitest';
import { retryingFetch } from '../src/retries.js';

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
});
