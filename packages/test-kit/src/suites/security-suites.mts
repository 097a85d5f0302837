import type { DatabaseBackend } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe } from 'vitest';

/** One of an API's security suites: it declares its tests against the API `get` gives once started. */
export type SecuritySuite<Api> = (get: () => Api) => void;

/**
 * An API's security suites on each test backend, all against one API per backend, whose start is
 * most of their cost: `start` runs before the first suite, `stop` after the last.
 */
export function describeSecuritySuites<Api>(
  title: string,
  lifecycle: { start(backend: DatabaseBackend): Promise<Api>; stop(api: Api): Promise<void> },
  suites: readonly SecuritySuite<Api>[],
): void {
  describe.each(testBackends())(`${title} on %s`, (backend) => {
    let shared: Api | undefined;
    const get = (): Api => {
      if (shared === undefined) throw new Error('the API is not started');
      return shared;
    };
    beforeAll(async () => {
      shared = await lifecycle.start(backend);
    });
    afterAll(async () => {
      if (shared !== undefined) await lifecycle.stop(shared);
    });

    for (const suite of suites) suite(get);
  });
}
