// The app as a deployment runs it: `node dist/main.js` (the package's bin), configured by the
// environment, on a real PostgreSQL and the embedded chain of a data directory.
import { join } from 'node:path';
import { describeServiceApp } from '@trustpoint/test-kit/suites';

describeServiceApp({
  role: 'cert',
  main: join(__dirname, '..', 'dist', 'main.js'),
  portVariable: 'CERT_API_PORT',
  basePath: '/cert/v2',
});
