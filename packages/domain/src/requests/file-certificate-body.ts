import { z } from 'zod';

import { sentJsonObjectSchema } from '../schemas/json-object.js';
import { certificateBodyFields } from './certificate-body-fields.js';

/** The `body` part of POST /certificates?type=file (spec 4.1). Unknown keys are reported. */
export const fileCertificateBodySchema = z
  .strictObject({
    ...certificateBodyFields,
    content: sentJsonObjectSchema.optional(),
  })
  .meta({ id: 'FileCertificateBody' });
export type FileCertificateBody = z.infer<typeof fileCertificateBodySchema>;

/**
 * The same part as it arrives in multipart form data: JSON text. Invalid JSON becomes one
 * validation issue on the part instead of a 500 from a parser.
 */
export const fileCertificateBodyPartSchema = z
  .string()
  .transform((text, context): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      context.addIssue({ code: 'custom', message: 'Expected a JSON object', input: text });
      return z.NEVER;
    }
  })
  .pipe(fileCertificateBodySchema);
