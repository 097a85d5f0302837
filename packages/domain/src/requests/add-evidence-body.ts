import { z } from 'zod';

import { sentJsonObjectSchema } from '../schemas/json-object.js';

/** Body adding an evidence to an asset; timestamp and owner are set by the service. */
export const addEvidenceBodySchema = z.strictObject({
  metadata: sentJsonObjectSchema,
});
export type AddEvidenceBody = z.infer<typeof addEvidenceBodySchema>;
