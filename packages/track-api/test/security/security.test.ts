import { describeSecuritySuites } from '@trustpoint/test-kit/suites';

import { isolationSuite } from './isolation.suite.js';
import { limitsSuite } from './limits.suite.js';
import { scopesSuite } from './scopes.suite.js';
import { startSecurityApi, stopSecurityApi } from './shared-api.js';
import { tokensSuite } from './tokens.suite.js';
import { unstorableTextSuite } from './unstorable-text.suite.js';

// The security suites of the track API: bearer tokens, isolation of users, limits of bodies (slow
// clients and URL fetches are the certificate API's suite: the same server). They share one API
// per backend, whose start is most of their cost.
describeSecuritySuites(
  'security of the track API',
  { start: startSecurityApi, stop: stopSecurityApi },
  [tokensSuite, isolationSuite, limitsSuite, unstorableTextSuite, scopesSuite],
);
