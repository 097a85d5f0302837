import { z } from 'zod';

import { sentJsonObjectSchema } from '../schemas/json-object.js';
import { certificateBodyFields } from './certificate-body-fields.js';

/** Body of POST /certificates?type=content; `content` is what gets hashed. */
export const contentCertificateBodySchema = z
  .strictObject({
    ...certificateBodyFields,
    content: sentJsonObjectSchema,
  })
  .meta({ id: 'ContentCertificateBody' });
export type ContentCertificateBody = z.infer<typeof contentCertificateBodySchema>;
