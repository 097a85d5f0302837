import { z } from 'zod';

import { epochMillisSchema } from '../schemas/epoch-time.js';
import { textSchema } from '../schemas/text.js';
import { REQUEST_LIMITS } from './request-limits.js';

/** Fields every certificate creation body shares (spec 4.1, `body` part). */
export const certificateBodyFields = {
  name: textSchema().min(1).max(REQUEST_LIMITS.nameMaxLength),
  description: textSchema().max(REQUEST_LIMITS.descriptionMaxLength),
  public: z.boolean().optional(),
  /** Expiration, milliseconds since the epoch; the service refuses one not after the creation. */
  expires: epochMillisSchema
    .meta({
      description:
        'When the certificate expires, in milliseconds since the epoch (not seconds); must be later than the moment of creation',
      example: 1798761600000,
    })
    .optional(),
  certificatePin: textSchema().min(1).max(REQUEST_LIMITS.certificatePinMaxLength).optional(),
  /** Caller-defined identifier; uniqueness is checked by the service (409). */
  externalId: textSchema().min(1).max(REQUEST_LIMITS.externalIdMaxLength).optional(),
};
