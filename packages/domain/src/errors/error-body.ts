import { z } from 'zod';

/** One validation problem: the dotted path of the field and what is wrong with it. */
export const fieldErrorSchema = z
  .object({
    field: z.string(),
    error: z.string(),
  })
  .meta({ id: 'FieldError' });
export type FieldError = z.infer<typeof fieldErrorSchema>;

/** Every error response: `{statusCode, type, message, errors?}` (spec 7.1). */
export const errorBodySchema = z
  .object({
    statusCode: z.number().int().min(400).max(599),
    type: z.string(),
    message: z.string(),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({
    id: 'ErrorBody',
    description:
      "Every error response (spec 7.1). `errors` lists a 400's problems, one entry each; another 4xx may carry one entry, a hint of what the caller can do (the scope a key lacks, the size limit, the Authorization scheme): the spec keeps `errors` for 400, so a client reading only statusCode, type and message sees the spec's body",
  });
export type ErrorBody = z.infer<typeof errorBodySchema>;
