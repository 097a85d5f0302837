import { z } from 'zod';

import { certificateSchema } from './certificate.js';
import { certificateFieldsSchema } from './certificate-fields.js';
import { paginationSchema } from './pagination.js';

/** `data` of GET /certificates without `fields` (spec 2.3): whole certificates. */
export const certificateListSchema = z.object({
  certificates: z.array(certificateSchema),
  pagination: paginationSchema,
});
export type CertificateList = z.infer<typeof certificateListSchema>;

/**
 * `data` of GET /certificates as served and documented: whole certificates, or with `fields`
 * only the fields named (spec 4.2).
 */
export const certificatePageSchema = z
  .object({
    certificates: z.array(certificateFieldsSchema),
    pagination: paginationSchema,
  })
  .meta({ id: 'CertificateList' });
export type CertificatePage = z.infer<typeof certificatePageSchema>;
