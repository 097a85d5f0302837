import { z } from 'zod';

import { integerParam } from '../schemas/integer-param.js';
import { sortOrderSchema } from '../schemas/sort-order.js';
import { REQUEST_LIMITS } from './request-limits.js';

/** `offset`, `limit` and `order` shared by the list endpoints, with their defaults. */
export const pageParams = {
  offset: integerParam(z.number().nonnegative()).default(0),
  limit: integerParam(z.number().min(1).max(REQUEST_LIMITS.pageSizeMax)).default(
    REQUEST_LIMITS.pageSizeDefault,
  ),
  order: sortOrderSchema.default('desc'),
};
