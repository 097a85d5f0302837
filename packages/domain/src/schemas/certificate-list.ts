import { z } from 'zod';

import { certificateSchema } from './certificate.js';
import { paginationSchema } from './pagination.js';

/** `data` of GET /certificates (spec 2.3). */
export const certificateListSchema = z
  .object({
    certificates: z.array(certificateSchema),
    pagination: paginationSchema,
  })
  .meta({ id: 'CertificateList' });
export type CertificateList = z.infer<typeof certificateListSchema>;
