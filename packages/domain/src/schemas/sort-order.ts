import { z } from 'zod';

/** Sort direction by creation date. */
export const sortOrderSchema = z.enum(['asc', 'desc']);
export type SortOrder = z.infer<typeof sortOrderSchema>;
