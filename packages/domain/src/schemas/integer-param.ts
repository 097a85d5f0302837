import { z } from 'zod';

const INTEGER_TEXT = /^-?\d+$/;

/**
 * An integer that may arrive as text (query strings, multipart fields). Only plain decimal
 * digits are converted: `z.coerce.number` would turn '' into 0 and '1e3' or '0x10' into numbers,
 * hiding a malformed request.
 */
export function integerParam(bounds: z.ZodNumber) {
  return z.preprocess(
    (value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value),
    bounds.int(),
  );
}
