import { Router } from 'express';
import type { CertificateSigner } from '../certificates/certificate-signer.js';

/**
 * GET /.well-known/jwks.json: the public keys of qualified signatures (the current one, then those
 * retired by key rotation, whose signatures stay valid), as a plain JWK Set (RFC 7517) rather than
 * the success envelope, so that any JOSE library can fetch it as it is.
 */
export function jwksRouter(signer: CertificateSigner): Router {
  const router = Router();
  router.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600');
    res.json(signer.jwks);
  });
  return router;
}
