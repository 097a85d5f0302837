import { describe, expect, it } from 'vitest';
import { LATEST_DATE_MILLIS } from '@trustpoint/verifier';
import { epochMillisSchema, epochSecondsSchema } from './epoch-time.js';

describe('epoch times', () => {
  it('when a time is the last a date can name, then it is taken, and one past it is refused saying why', () => {
    expect(new Date(LATEST_DATE_MILLIS).toISOString()).toBe('+275760-09-13T00:00:00.000Z');
    expect(epochMillisSchema.parse(LATEST_DATE_MILLIS)).toBe(LATEST_DATE_MILLIS);
    for (const beyond of [LATEST_DATE_MILLIS + 1, Number.MAX_SAFE_INTEGER]) {
      const parsed = epochMillisSchema.safeParse(beyond);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain('year 275760');
    }
    expect(epochSecondsSchema.safeParse(LATEST_DATE_MILLIS / 1000).success).toBe(true);
    expect(epochSecondsSchema.safeParse(LATEST_DATE_MILLIS / 1000 + 1).success).toBe(false);
  });
});
