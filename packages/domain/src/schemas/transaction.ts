import { z } from 'zod';

import { userDidSchema } from '../ids/user-did.js';
import { epochSecondsSchema } from './epoch-time.js';
import { evmAddressSchema } from './evm-address.js';
import { evmTransactionHashSchema } from './evm-transaction-hash.js';
import { hashHexSchema } from './hash-hex.js';
import { jsonObjectSchema } from './json-object.js';

/** One evidence registered for an asset (spec 2.4, Transaction). */
export const transactionSchema = z.object({
  metadata: jsonObjectSchema,
  /** Seconds; half of the on-chain key (with the asset's assetHash). */
  timestamp: epochSecondsSchema,
  userOwner: userDidSchema,
  /** `doubleHash(JCS({metadata, timestamp, userOwner}))`; what `getEvidence` returns. */
  hash: hashHexSchema,
  smartContract: evmAddressSchema,
  transactionHash: evmTransactionHashSchema,
});
export type Transaction = z.infer<typeof transactionSchema>;
