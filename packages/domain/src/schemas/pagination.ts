import { z } from 'zod';

import { sortOrderSchema } from './sort-order.js';

/** The window a list response covers (spec 2.5). */
export const paginationSchema = z
  .object({
    offset: z.number().int().nonnegative(),
    limit: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    order: sortOrderSchema,
  })
  .meta({ id: 'Pagination' });
export type Pagination = z.infer<typeof paginationSchema>;
