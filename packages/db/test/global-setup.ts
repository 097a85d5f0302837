import { pgliteImage } from '../src/testing/pglite-images.js';

/**
 * Makes the PGlite images (an empty cluster, and one with every migration applied) before any test
 * file runs, so no test's own time includes an `initdb`; the test files' processes read them from
 * disk.
 */
export default async function makePgliteImages(): Promise<void> {
  await pgliteImage(false);
  await pgliteImage(true);
}
