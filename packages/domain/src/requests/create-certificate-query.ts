import { z } from 'zod';

import { certificateTypeSchema } from '../schemas/certificate-type.js';
import { networkIdSchema } from '../schemas/network-id.js';
import { booleanParam } from './boolean-param.js';

/** Query of POST /certificates (spec 4.1): which kind, which network, and the two flags. */
export const createCertificateQuerySchema = z.strictObject({
  type: certificateTypeSchema,
  networkId: networkIdSchema,
  qualified: booleanParam.default(false),
  /** Files only: also publish the file in the file repository. */
  publish: booleanParam.default(false),
});
export type CreateCertificateQuery = z.infer<typeof createCertificateQuerySchema>;
