import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe } from 'vitest';

import { isolationSuite } from './isolation.suite.js';
import { limitsSuite } from './limits.suite.js';
import { scopesSuite } from './scopes.suite.js';
import { startSecurityApi, stopSecurityApi, type SecurityApi } from './shared-api.js';
import { tokensSuite } from './tokens.suite.js';
import { unstorableTextSuite } from './unstorable-text.suite.js';

// The security suites of the track API: bearer tokens, isolation of users, limits of bodies (slow
// clients and URL fetches are the certificate API's suite: the same server). They share one API
// per backend, whose start is most of their cost.
describe.each(testBackends())('security of the track API on %s', (backend) => {
  let shared: SecurityApi | undefined;
  const get = (): SecurityApi => {
    if (shared === undefined) throw new Error('the API is not started');
    return shared;
  };
  beforeAll(async () => {
    shared = await startSecurityApi(backend);
  });
  afterAll(async () => {
    if (shared !== undefined) await stopSecurityApi(shared);
  });

  tokensSuite(get);
  isolationSuite(get);
  limitsSuite(get);
  unstorableTextSuite(get);
  scopesSuite(get);
});
