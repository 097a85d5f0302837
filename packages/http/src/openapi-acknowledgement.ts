import { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { MAX_PREFERRED_WAIT_SECONDS } from './acknowledgement.js';

/** The `Prefer` request header of operations that create records to anchor (RFC 7240). */
export const preferHeaderSchema = z.object({
  prefer: z
    .string()
    .optional()
    .meta({
      description:
        '`respond-async`: answer 202 at once with the record pending, instead of waiting until ' +
        'it is anchored; `wait=N` (seconds, at most ' +
        `${String(MAX_PREFERRED_WAIT_SECONDS)}): ` +
        'wait up to N seconds for it (with `respond-async`, then 202 if still pending; without, ' +
        "the synchronous rules). Without a preference, the network's default applies.",
      example: 'respond-async',
    }),
});

/**
 * The 202 answer of a creation acknowledged before its record is anchored: the envelope with the
 * record (status `pending`), where to follow it, and whether `respond-async` was applied; with
 * `data`, an example of the whole answer.
 */
export function acceptedResponse(
  description: string,
  schema: z.ZodType,
  message: string,
  data: unknown,
): ZodOpenApiResponsesObject {
  return {
    202: {
      description,
      headers: {
        Location: {
          description: 'Where to read the record and follow its anchoring status',
          required: true,
          schema: { type: 'string' },
        },
        'Preference-Applied': {
          description: '`respond-async` when the request asked for it',
          required: false,
          schema: { type: 'string' },
        },
      },
      content: {
        'application/json': {
          schema,
          ...(data === undefined
            ? {}
            : {
                examples: {
                  accepted: { summary: message, value: { statusCode: 202, message, data } },
                },
              }),
        },
      },
    },
  };
}
