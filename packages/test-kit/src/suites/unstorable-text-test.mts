import type { RequestListener } from 'node:http';
import type { Queryable } from '@trustpoint/db';
import { callerStateDigest } from '@trustpoint/test-database';
import { expect, it } from 'vitest';

import {
  unstorableTextFailures,
  type SentUnstorableTextCase,
} from '../security/unstorable-text-cases.js';

/**
 * The test that every string of every documented request body goes through the shared text rule:
 * each case (U+0000 or a lone surrogate in one string, read from the served documents in the
 * suite's `beforeAll`, so a newly documented body is covered as it is served) is refused with a
 * 400 naming the field, and nothing is stored (the callers' state digest is unchanged).
 */
export function unstorableTextTest(
  cases: readonly SentUnstorableTextCase[],
  api: () => { app: RequestListener; db: { knex: Queryable } },
): void {
  it('when any string of any documented body holds U+0000 or a lone surrogate, then 400 naming it and nothing is stored', async () => {
    const { app, db } = api();

    const failures = await unstorableTextFailures(app, cases, () => callerStateDigest(db.knex));

    expect(failures).toEqual([]);
  }, 300_000);
}
