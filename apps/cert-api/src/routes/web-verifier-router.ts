import { WEB_VERIFIER_CSP, WEB_VERIFIER_DIRECTORY } from '@trustpoint/web-verifier';
import express, { Router } from 'express';

export const WEB_VERIFIER_PATH = '/verify';

/**
 * GET /verify/: the web verifier, static files without a token. The page checks a certificate in
 * the browser against nodes the user lists; it reads from this service only a certificate asked
 * for by certID, `/networks` (explorer links) and `/.well-known/jwks.json` (signatures).
 */
export function webVerifierRouter(directory: string = WEB_VERIFIER_DIRECTORY): Router {
  const router = Router();
  router.use(
    WEB_VERIFIER_PATH,
    (_req, res, next) => {
      res.set({
        'Content-Security-Policy': WEB_VERIFIER_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      });
      next();
    },
    express.static(directory, { index: 'index.html', maxAge: '5m', fallthrough: true }),
  );
  return router;
}
