import { DomainError } from '@trustpoint/domain';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';

import {
  acknowledgementFor,
  awaitAcknowledgement,
  MAX_PREFERRED_WAIT_SECONDS,
  parsePrefer,
  type Acknowledgement,
} from '../src/acknowledgement.js';

const requestWith = (prefer?: string | string[]) =>
  ({ headers: prefer === undefined ? {} : { prefer } }) as unknown as Request;

describe('parsePrefer', () => {
  it.each([
    [undefined, { respondAsync: false, waitSeconds: undefined }],
    ['respond-async', { respondAsync: true, waitSeconds: undefined }],
    ['Respond-Async ; foo=bar', { respondAsync: true, waitSeconds: undefined }],
    ['wait=10', { respondAsync: false, waitSeconds: 10 }],
    ['respond-async, wait="5"', { respondAsync: true, waitSeconds: 5 }],
    [['handling=lenient', 'wait=7, wait=9'], { respondAsync: false, waitSeconds: 7 }],
    ['wait=-1, wait=abc, wait=1e3', { respondAsync: false, waitSeconds: undefined }],
    ['return=minimal', { respondAsync: false, waitSeconds: undefined }],
  ])('when Prefer is %j, then it reads %j', (header, expected) => {
    expect(parsePrefer(header)).toEqual(expected);
  });
});

describe('acknowledgementFor', () => {
  const sync = { acknowledgement: 'sync', anchorTimeoutMs: 30_000 } as const;

  it('when nothing is preferred, then the network default applies', () => {
    expect(acknowledgementFor(requestWith(), sync)).toEqual({
      waitMs: 30_000,
      onTimeout: 'withdraw',
    });
    expect(acknowledgementFor(requestWith(), { acknowledgement: 'async' })).toEqual({
      waitMs: 0,
      onTimeout: 'accept',
    });
  });

  it('when respond-async is preferred, then no wait, or the preferred one, and a pending answer', () => {
    expect(acknowledgementFor(requestWith('respond-async'), sync)).toEqual({
      waitMs: 0,
      onTimeout: 'accept',
    });
    expect(acknowledgementFor(requestWith('respond-async, wait=4'), sync)).toEqual({
      waitMs: 4_000,
      onTimeout: 'accept',
    });
  });

  it('when only a wait is preferred, then it is synchronous for that long, capped', () => {
    expect(acknowledgementFor(requestWith('wait=2'), { acknowledgement: 'async' })).toEqual({
      waitMs: 2_000,
      onTimeout: 'withdraw',
    });
    expect(acknowledgementFor(requestWith('wait=999999'), sync).waitMs).toBe(
      MAX_PREFERRED_WAIT_SECONDS * 1_000,
    );
  });
});

describe('awaitAcknowledgement', () => {
  const timeout = () => new DomainError('networkUnavailable', { detail: 'timed out' });
  const run = (
    acknowledgement: Acknowledgement,
    outcome: 'mined' | 'timeout' | 'broken',
    withdrawn: boolean,
  ) => {
    const calls = { waits: [] as (number | undefined)[], withdraws: 0 };
    const result = awaitAcknowledgement({
      acknowledgement,
      recordIds: [1, 2],
      wait: (recordId, timeoutMs) => {
        calls.waits.push(timeoutMs);
        if (outcome === 'mined') return Promise.resolve({ recordId });
        return Promise.reject(outcome === 'timeout' ? timeout() : new Error('broken'));
      },
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
