// Preloaded (`node --require`) into a process that another one starts with a pipe as its stdin:
// when that pipe closes, because the starting process ended however it ended (SIGKILL included,
// which runs none of its exit handlers), this process ends too. A chain node started by a test or
// by `trustpoint start` never outlives it. The pipe does not keep this process alive on its own.
// Worker threads inherit the preload (execArgv) but not the pipe: their stdin ends at once, and
// process.exit there would end the thread (`serve all`'s anchoring thread exited with code 0).
'use strict';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a preload is CommonJS
if (require('node:worker_threads').isMainThread) {
  const exit = () => process.exit(0);
  process.stdin.once('end', exit);
  process.stdin.once('error', exit);
  process.stdin.resume();
  if (typeof process.stdin.unref === 'function') process.stdin.unref();
}
