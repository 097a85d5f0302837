import { z } from 'zod';
import { CERTIFICATE_LOOKUPS } from '../certificates/get-certificate.js';

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
