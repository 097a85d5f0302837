import type { Request } from 'express';
import { describe, expect, it } from 'vitest';

import {
  acknowledgementFor,
  MAX_PREFERRED_WAIT_SECONDS,
  parsePrefer,
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
