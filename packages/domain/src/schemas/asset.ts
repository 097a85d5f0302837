import { z } from 'zod';

import { trackIdSchema } from '../ids/track-id.js';
import { anchoringStatusSchema } from './anchoring-status.js';
import { hashHexSchema } from './hash-hex.js';
import { jsonObjectSchema } from './json-object.js';
import { networkIdSchema } from './network-id.js';
import { transactionSchema } from './transaction.js';

/** Asset resource of the tracking API (spec 2.4). */
export const assetSchema = z.object({
  trackID: trackIdSchema(),
  assetId: z.string(),
  data: jsonObjectSchema,
  networkId: networkIdSchema,
  /** `doubleHash(JCS({assetId, data}))`. */
  assetHash: hashHexSchema,
  transactions: z.array(transactionSchema),
  /** The least settled of its evidences: failed, else pending, else anchored. */
  status: anchoringStatusSchema,
});
export type Asset = z.infer<typeof assetSchema>;
