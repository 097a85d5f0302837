/** Makes the PGlite images before any test file runs (see `makePgliteImages`). */
export { makePgliteImages as default } from '../src/index.js';
