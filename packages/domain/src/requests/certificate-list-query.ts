import { z } from 'zod';

import { anchoringStatusSchema } from '../schemas/anchoring-status.js';
import { certificateAccessSchema, certificateDataSchema } from '../schemas/certificate.js';
import { certificateTypeSchema } from '../schemas/certificate-type.js';
import { integerParam } from '../schemas/integer-param.js';
import { fieldsParam } from './fields-param.js';
import { pageParams } from './page-params.js';

/** Fields `?fields=` may name: top-level keys, or one member of `data` or `access`. */
export const CERTIFICATE_FIELDS = [
  'certID',
  'data',
  'metadata',
  'access',
  'status',
  ...Object.keys(certificateDataSchema.shape).map((key) => `data.${key}`),
  ...Object.keys(certificateAccessSchema.shape).map((key) => `access.${key}`),
];

/** Query of GET /certificates (spec 4.2). Values arrive as text; numbers are converted. */
export const certificateListQuerySchema = z
  .strictObject({
    access: z.enum(['public', 'private']).optional(),
    type: certificateTypeSchema.optional(),
    /** Only certificates in this anchoring status (see `Certificate.status`). */
    status: anchoringStatusSchema.optional(),
    /** Creation time window, milliseconds since the epoch, both ends inclusive. */
    from: integerParam(z.number().nonnegative()).optional(),
    to: integerParam(z.number().nonnegative()).optional(),
    ...pageParams,
    fields: fieldsParam(CERTIFICATE_FIELDS).optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    message: '`to` must not be earlier than `from`',
    path: ['to'],
  });
export type CertificateListQuery = z.infer<typeof certificateListQuerySchema>;
