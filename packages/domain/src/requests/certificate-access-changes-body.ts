import { z } from 'zod';

import { textSchema } from '../schemas/text.js';
import { REQUEST_LIMITS } from './request-limits.js';

/**
 * Body of PATCH /certificates/{type}/{id}: the access fields to change. `null` removes a PIN or an
 * externalId; a field left out stays as it is; an empty body is a mistake worth reporting.
 */
export const certificateAccessChangesBodySchema = z
  .strictObject({
    public: z.boolean().optional(),
    certificatePin: textSchema()
      .min(1)
      .max(REQUEST_LIMITS.certificatePinMaxLength)
      .nullable()
      .optional(),
    externalId: textSchema().min(1).max(REQUEST_LIMITS.externalIdMaxLength).nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'Name at least one of public, certificatePin, externalId',
  })
  .meta({ id: 'CertificateAccessChanges' });
export type CertificateAccessChangesBody = z.infer<typeof certificateAccessChangesBodySchema>;
