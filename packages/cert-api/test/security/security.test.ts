import { describeSecuritySuites } from '@trustpoint/test-kit/suites';

import { isolationSuite } from './isolation.suite.js';
import { limitsSuite } from './limits.suite.js';
import { scopesSuite } from './scopes.suite.js';
import { startSecurityApi, stopSecurityApi } from './shared-api.js';
import { tokensSuite } from './tokens.suite.js';
import { unstorableTextSuite } from './unstorable-text.suite.js';

// The security suites of the certificate API (and the admin API it serves): bearer tokens,
// isolation of users, limits. They share one API per backend, whose start is most of their cost.
describeSecuritySuites(
  'security of the certificate API',
  { start: startSecurityApi, stop: stopSecurityApi },
  [tokensSuite, isolationSuite, limitsSuite, unstorableTextSuite, scopesSuite],
);
