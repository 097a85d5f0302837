#!/usr/bin/env node
// The `trustpoint` command. `npm start` runs `trustpoint start`.
import { run } from './program.js';

// `trustpoint admin audit | head`: a reader that stops early is no failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A port in use says all there is to say (the listener's message names it and what to do).
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE') {
      console.error(`error: ${(error as Error).message}`);
    } else {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    process.exitCode = 1;
  },
);
