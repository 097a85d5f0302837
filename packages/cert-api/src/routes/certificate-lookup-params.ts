import type { CertificateRecord } from '@trustpoint/db';
import { clientAddress, optionalCurrentUser, validate } from '@trustpoint/http';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { CERTIFICATE_LOOKUPS, getCertificate } from '../certificates/get-certificate.js';

const lookupNames = Object.keys(CERTIFICATE_LOOKUPS) as [string, ...string[]];

/**
 * `/{type}/{id}` of the routes that find one certificate (certID, externalId, fileHash, hash),
 * named as the spec and the OpenAPI document name them, so a wrong one is `path.type`.
 */
export const lookupParamsSchema = z.object({
  type: z.enum(lookupNames, { error: `Expected one of ${lookupNames.join(', ')}` }),
  id: z.string().min(1).max(256),
});

/** `?pin=` of the routes that read a certificate others may see. */
export const pinQuerySchema = z.object({ pin: z.string().max(256).optional() });

/**
 * The certificate a read names by `/{type}/{id}` (and `?pin=`), as its caller may see it: their
 * own, or a public one, its PIN checked and counted against the caller's address.
 */
export async function certificateAskedFor(
  services: CertificateServices,
  req: Request,
  res: Response,
): Promise<CertificateRecord> {
  const { type: lookup, id } = validate(lookupParamsSchema, req.params, 'path');
  const { pin } = validate(pinQuerySchema, req.query, 'query');
  return getCertificate(services, optionalCurrentUser(res), lookup, id, {
    pin,
    address: clientAddress(req),
  });
}
