import {
  authenticate,
  currentUser,
  requireScope,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { Router } from 'express';
import type { TrackServices } from '../assets/track-services.js';
import { verifyEvidence } from '../assets/verify-evidence.js';
import { evidenceParamsSchema } from './track-params.js';

/** GET /evidences/{id}: the service verifies an evidence (by its hash) on chain. */
export function evidencesRouter(services: TrackServices, auth: AuthenticateOptions): Router {
  const router = Router();
  router.get('/evidences/:id', authenticate(auth), requireScope('read'), async (req, res) => {
    const { id } = validate(evidenceParamsSchema, req.params, 'path');
    const verification = await verifyEvidence(services, currentUser(res), id);
    sendSuccess(
      res,
      200,
      verification.verified ? 'Evidence verified' : 'Evidence not verified',
      verification,
    );
  });
  return router;
}
