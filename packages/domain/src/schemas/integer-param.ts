import { z } from 'zod';

const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;

/**
 * An integer that may arrive as text (query strings, multipart fields). Only plain decimal
 * digits are converted, without leading zeros: `z.coerce.number` would turn '' into 0 and '1e3'
 * or '0x10' into numbers, hiding a malformed request, and '031337' reads as octal to some.
 */
export function integerParam(bounds: z.ZodNumber) {
  return z.preprocess(
    (value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value),
    bounds.int(),
  );
}
