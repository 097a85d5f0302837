import { DomainError, TRUST_DOCUMENT_PATH, type TrustDocument } from '@trustpoint/domain';
import { Router } from 'express';

/**
 * `GET /.well-known/trustpoint.json` at the root of the listener, without a token, readable by any
 * page (CORS `*`): the trust document verifiers pin when their user trusts this origin. Served
 * as the document itself (no envelope), as `.well-known` documents are.
 */
export function trustDocumentRouter(document: () => Promise<TrustDocument>): Router {
  const router = Router();
  router.get(TRUST_DOCUMENT_PATH, async (_req, res) => {
    let body: TrustDocument;
    try {
      body = await document();
    } catch (error) {
      throw new DomainError('networkUnavailable', {
        detail: `the trust document cannot be built now: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    res.set('access-control-allow-origin', '*');
    res.set('cache-control', 'public, max-age=60');
    res.status(200).json(body);
  });
  return router;
}
