import { z } from 'zod';

import { epochMillisSchema } from '../schemas/epoch-time.js';
import { textSchema } from '../schemas/text.js';
import { REQUEST_LIMITS } from './request-limits.js';

/** Fields every certificate creation body shares (spec 4.1, `body` part). */
export const certificateBodyFields = {
  name: textSchema().min(1).max(REQUEST_LIMITS.nameMaxLength),
  description: textSchema().max(REQUEST_LIMITS.descriptionMaxLength),
  public: z.boolean().optional(),
  /** Expiration, milliseconds since the epoch. */
  expires: epochMillisSchema.optional(),
  certificatePin: textSchema().min(1).max(REQUEST_LIMITS.certificatePinMaxLength).optional(),
  /** Caller-defined identifier; uniqueness is checked by the service (409). */
  externalId: textSchema().min(1).max(REQUEST_LIMITS.externalIdMaxLength).optional(),
};
