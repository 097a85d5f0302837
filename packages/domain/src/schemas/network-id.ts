import { z } from 'zod';

import { integerParam } from './integer-param.js';

/**
 * EVM chain id of the network a record is anchored on. The spec types it as a string in one
 * place and a number in listings; decimal text is accepted and every output is a number.
 */
export const networkIdSchema = integerParam(z.number().positive()).meta({
  description: 'EVM chain id',
  example: 31337,
  // As a query parameter it is required; document generators read text-accepting inputs as optional.
  param: { required: true },
});
