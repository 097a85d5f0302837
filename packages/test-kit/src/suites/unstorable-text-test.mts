import type { RequestListener } from 'node:http';
import { expect, it } from 'vitest';

import {
  unstorableTextFailures,
  type SentUnstorableTextCase,
} from '../security/unstorable-text-cases.js';

/**
 * The test that every case (U+0000 or a lone surrogate in each string of each documented body,
 * read from the served documents in the suite's `beforeAll`) is refused with a 400 naming the
 * field, before anything is stored.
 */
export function unstorableTextTest(
  cases: readonly SentUnstorableTextCase[],
  world: () => { app: RequestListener; digest: () => Promise<string> },
): void {
  it('when any string of any documented body holds U+0000 or a lone surrogate, then 400 naming it and nothing is stored', async () => {
    const { app, digest } = world();

    const failures = await unstorableTextFailures(app, cases, digest);

    expect(failures).toEqual([]);
  }, 300_000);
}
