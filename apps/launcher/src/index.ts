#!/usr/bin/env node
// `npm start`: Trustpoint on its embedded defaults, no configuration needed. Ctrl-C stops it.
import { serveAll } from './serve-all.js';

serveAll().catch((error: unknown) => {
  console.error(
    `Trustpoint could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
