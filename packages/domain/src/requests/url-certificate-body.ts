import { z } from 'zod';

import { refuseUnstorableText } from '../schemas/text.js';
import { certificateBodyFields } from './certificate-body-fields.js';
import { REQUEST_LIMITS } from './request-limits.js';

/** Body of POST /certificates?type=url; the service fetches the URL once and hashes the bytes. */
export const urlCertificateBodySchema = z
  .strictObject({
    ...certificateBodyFields,
    url: z
      .url({ protocol: /^https?$/, error: 'Expected an http or https URL' })
      .max(REQUEST_LIMITS.urlMaxLength)
      .check(refuseUnstorableText),
  })
  .meta({ id: 'UrlCertificateBody' });
export type UrlCertificateBody = z.infer<typeof urlCertificateBodySchema>;
