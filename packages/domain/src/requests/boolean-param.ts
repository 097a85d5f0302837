import { z } from 'zod';

/**
 * A boolean that may arrive as the text `true` or `false` (spec 4.1 query flags). Anything else
 * is rejected: `z.coerce.boolean` would read the text "false" as true.
 */
export const booleanParam = z.preprocess((value) => {
  if (value === 'true') {
    return true;
  }
  if (value === 'false') {
    return false;
  }
  return value;
}, z.boolean());
