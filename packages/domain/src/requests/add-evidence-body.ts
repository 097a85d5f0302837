import { z } from 'zod';

import { jsonObjectSchema } from '../schemas/json-object.js';

/** Body adding an evidence to an asset; timestamp and owner are set by the service. */
export const addEvidenceBodySchema = z.strictObject({
  metadata: jsonObjectSchema,
});
export type AddEvidenceBody = z.infer<typeof addEvidenceBodySchema>;
