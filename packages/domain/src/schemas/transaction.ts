import { z } from 'zod';

import { userDidSchema } from '../ids/user-did.js';
import { anchoringStatusSchema } from './anchoring-status.js';
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
  status: anchoringStatusSchema,
  /** Once anchored: the repository where `getEvidence` answers for it. */
  smartContract: evmAddressSchema.optional(),
  /** Once anchored: the transaction that recorded it. */
  transactionHash: evmTransactionHashSchema.optional(),
  /** Failed evidences only: why it can never be anchored. */
  failure: z.string().optional(),
});
export type Transaction = z.infer<typeof transactionSchema>;
