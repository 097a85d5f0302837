import { join } from 'node:path';

/**
 * The built page (`index.html`, `verifier.js`, `verifier.css`): static files to serve as they are,
 * as the certificate API does at `/cert/v2/verify/`.
 */
export const WEB_VERIFIER_DIRECTORY = join(__dirname, 'page');

/** The same page as one HTML file (script and style inline) that works opened from disk. */
export const WEB_VERIFIER_STANDALONE_FILE = join(
  __dirname,
  'standalone',
  'trustpoint-verifier.html',
);

/**
 * The Content-Security-Policy for the served page: its own script and style only, and requests to
 * any node (the user chooses the JSON-RPC URLs) and to the service.
 */
export const WEB_VERIFIER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'connect-src *',
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
