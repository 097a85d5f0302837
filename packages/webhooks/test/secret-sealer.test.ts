import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  createSecretSealer,
  deriveWebhookKey,
  newEndpointSecret,
  retryDelayMs,
  DEFAULT_RETRY_SCHEDULE,
} from '../src/index.js';

describe('endpoint secrets', () => {
  it('when a secret is sealed, then only the same key opens it and the sealed form hides it', () => {
    const secret = newEndpointSecret();
    const sealer = createSecretSealer(randomBytes(32));
    const sealed = sealer.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealer.open(sealed)).toBe(secret);
    expect(() => createSecretSealer(randomBytes(32)).open(sealed)).toThrow();
  });

  it('when a secret is made, then standardwebhooks accepts it', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const signature = new Webhook(secret).sign('msg_1', new Date(), '{}');
    expect(signature).toMatch(/^v1,/);
  });

  it('when the key is derived from a service key, then it is stable and differs from it', () => {
    const serviceKey = randomBytes(32);
    expect(deriveWebhookKey(serviceKey)).toEqual(deriveWebhookKey(serviceKey));
    expect(deriveWebhookKey(serviceKey).equals(serviceKey)).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('when attempts fail, then waits double up to the cap, and a day holds about 20 attempts', () => {
    const none = () => 0;
    expect([1, 2, 3].map((n) => retryDelayMs(n, DEFAULT_RETRY_SCHEDULE, none))).toEqual([
      10_000, 20_000, 40_000,
    ]);
    expect(retryDelayMs(30, DEFAULT_RETRY_SCHEDULE, none)).toBe(DEFAULT_RETRY_SCHEDULE.maxDelayMs);
    let elapsed = 0;
    let attempts = 1;
    while (
      elapsed + retryDelayMs(attempts, DEFAULT_RETRY_SCHEDULE, none) <=
      DEFAULT_RETRY_SCHEDULE.retryForMs
    ) {
      elapsed += retryDelayMs(attempts, DEFAULT_RETRY_SCHEDULE, none);
      attempts += 1;
    }
    expect(attempts).toBeGreaterThanOrEqual(15);
    expect(attempts).toBeLessThanOrEqual(25);
  });
});
