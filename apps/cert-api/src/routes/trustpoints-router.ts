import {
  clientAddress,
  optionalAuthenticate,
  optionalCurrentUser,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { Router } from 'express';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { getCertificate } from '../certificates/get-certificate.js';
import { verifyCertificate } from '../certificates/verify-certificate.js';
import { lookupParamsSchema, pinQuerySchema } from './certificate-lookup-params.js';

/** GET /trustpoints/{type}/{id}: the service verifies a certificate's trustpoints on chain. */
export function trustpointsRouter(
  services: CertificateServices,
  auth: AuthenticateOptions,
): Router {
  const router = Router();
  router.get('/trustpoints/:lookup/:id', optionalAuthenticate(auth), async (req, res) => {
    const { lookup, id } = validate(lookupParamsSchema, req.params, 'path');
    const { pin } = validate(pinQuerySchema, req.query, 'query');
    const record = await getCertificate(services, optionalCurrentUser(res), lookup, id, {
      pin,
      address: clientAddress(req),
    });
    const verification = await verifyCertificate(services, record);
    sendSuccess(
      res,
      200,
      verification.verified ? 'Certificate verified' : 'Certificate not verified',
      verification,
    );
  });
  return router;
}
