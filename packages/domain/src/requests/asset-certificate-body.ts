import { z } from 'zod';

import { sentJsonObjectSchema } from '../schemas/json-object.js';
import { textSchema } from '../schemas/text.js';
import { certificateBodyFields } from './certificate-body-fields.js';
import { REQUEST_LIMITS } from './request-limits.js';

/**
 * A bound of an asset certificate (`from`, `to`): a timestamp or a caller-defined label such as a
 * location or party. It is hashed exactly as sent, so both forms stay reproducible.
 */
export const assetCertificateBoundSchema = z.union([
  z.number().int().nonnegative(),
  textSchema().min(1).max(REQUEST_LIMITS.assetBoundMaxLength),
]);

/** Body of POST /certificates?type=asset; `{assetId, from, to, content}` is what gets hashed. */
export const assetCertificateBodySchema = z
  .strictObject({
    ...certificateBodyFields,
    assetId: textSchema().min(1).max(REQUEST_LIMITS.assetIdMaxLength),
    from: assetCertificateBoundSchema.optional(),
    to: assetCertificateBoundSchema.optional(),
    content: sentJsonObjectSchema.optional(),
  })
  .meta({ id: 'AssetCertificateBody' });
export type AssetCertificateBody = z.infer<typeof assetCertificateBodySchema>;
