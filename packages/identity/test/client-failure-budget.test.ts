import { describe, expect, it } from 'vitest';
import { ClientFailureBudget } from '../src/client-failure-budget.js';

describe('ClientFailureBudget', () => {
  it("when failures come just before and just after a minute of the clock ends, then they count together: each key's window starts at its first failure", () => {
    // Arrange: the first failure 100 ms before a whole minute.
    let now = 1_800_000_060_000 - 100;
    const budget = new ClientFailureBudget({ limit: 3, windowMs: 60_000, now: () => now });

    // Act
    budget.recordFailure(['ip:203.0.113.7']);
    now += 200;
    budget.recordFailure(['ip:203.0.113.7']);
    budget.recordFailure(['ip:203.0.113.7']);

    // Assert: exhausted until a minute after the first failure.
    expect(budget.exhausted(['ip:203.0.113.7'])).toBe(60);
    now += 59_900;
    expect(budget.exhausted(['ip:203.0.113.7'])).toBeUndefined();
  });

  it('when several keys are exhausted, then Retry-After waits for the last of them to recover; other keys are not exhausted', () => {
    // Arrange
    let now = 1_000_000;
    const budget = new ClientFailureBudget({ limit: 2, windowMs: 60_000, now: () => now });
    budget.recordFailure(['ip:a', 'client:x']);
    now += 20_000;
    budget.recordFailure(['ip:a']);
    budget.recordFailure(['client:x', 'client:y']);

    // Act
    const both = budget.exhausted(['ip:a', 'client:x']);
    const other = budget.exhausted(['ip:b', 'client:y']);

    // Assert: both windows started at the first failure, 40 s from their end.
    expect(both).toBe(40);
    expect(other).toBeUndefined();
  });
});
