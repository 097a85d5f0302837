import { DomainError, type Acknowledgement } from '@trustpoint/domain';
import { describe, expect, it } from 'vitest';
import { awaitAcknowledgement } from '../src/anchoring/acknowledgement-wait.js';
import type { AnchorReceipt } from '../src/anchoring/anchor-record.js';

describe('awaitAcknowledgement', () => {
  const timeout = () => new DomainError('networkUnavailable', { detail: 'timed out' });
  const run = (
    acknowledgement: Acknowledgement,
    outcome: 'mined' | 'timeout' | 'broken',
    withdrawn: boolean,
  ) => {
    const calls = { waits: [] as (number | undefined)[], withdraws: 0 };
    const engine = {
      waitForAnchor: (recordId: number, timeoutMs?: number) => {
        calls.waits.push(timeoutMs);
        if (outcome === 'mined') return Promise.resolve({ recordId } as AnchorReceipt);
        return Promise.reject(outcome === 'timeout' ? timeout() : new Error('broken'));
      },
    };
    const result = awaitAcknowledgement(engine, {
      acknowledgement,
      recordIds: [1, 2],
      withdraw: () => {
        calls.withdraws += 1;
        return Promise.resolve(withdrawn);
      },
    });
    return { result, calls };
  };

  it('when the records are mined in time, then anchored with every receipt', async () => {
    const { result, calls } = run({ waitMs: 5, onTimeout: 'withdraw' }, 'mined', true);
    expect(await result).toEqual({ anchored: true, receipts: [{ recordId: 1 }, { recordId: 2 }] });
    expect(calls).toEqual({ waits: [5, 5], withdraws: 0 });
  });

  it('when no wait is asked for, then pending without waiting', async () => {
    const { result, calls } = run({ waitMs: 0, onTimeout: 'accept' }, 'mined', true);
    expect(await result).toEqual({ anchored: false });
    expect(calls.waits).toEqual([]);
  });

  it('when an accepting wait times out, then pending and nothing is withdrawn', async () => {
    const { result, calls } = run({ waitMs: 5, onTimeout: 'accept' }, 'timeout', true);
    expect(await result).toEqual({ anchored: false });
    expect(calls.withdraws).toBe(0);
  });

  it('when a synchronous wait times out and the records are withdrawn, then the 503 stands', async () => {
    const { result } = run({ waitMs: undefined, onTimeout: 'withdraw' }, 'timeout', true);
    await expect(result).rejects.toMatchObject({ code: 'networkUnavailable' });
  });

  it('when a synchronous wait times out after the batch was sent, then pending, not a failure', async () => {
    const { result, calls } = run({ waitMs: 5, onTimeout: 'withdraw' }, 'timeout', false);
    expect(await result).toEqual({ anchored: false });
    expect(calls.withdraws).toBe(1);
  });

  it('when waiting fails otherwise and nothing can be withdrawn, then the error stands', async () => {
    const { result } = run({ waitMs: 5, onTimeout: 'accept' }, 'broken', false);
    await expect(result).rejects.toThrow('broken');
  });
});
