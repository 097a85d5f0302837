import { z } from 'zod';

import { trackIdSchema } from '../ids/track-id.js';
import { userDidSchema } from '../ids/user-did.js';
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
  /**
   * Half of each evidence's on-chain key (assetHash, timestamp), by the rule `hashVersion` names:
   * 1 `doubleHash(JCS({assetId, data}))`; 2 `doubleHash("Trustpoint asset hash v2\n" ‖
   * JCS({hashVersion: 2, trackID, owner, assetId, data}))`, an asset's own key space.
   */
  assetHash: hashHexSchema.meta({
    description:
      "Half of each evidence's on-chain key (assetHash, timestamp in seconds), by the rule " +
      '`hashVersion` names. Version 1 covers `assetId` and `data` only (assets of other users ' +
      'with the same assetId and data have the same assetHash); version 2 covers `hashVersion`, ' +
      '`trackID`, `owner`, `assetId` and `data`: `doubleHash(utf8("Trustpoint asset hash v2\\n") ‖ ' +
      'JCS({hashVersion: 2, trackID, owner, assetId, data}))`, so every asset has keys of its own',
  }),
  hashVersion: z.union([z.literal(1), z.literal(2)]).meta({
    description:
      'The rule of `assetHash`: 2 for every asset created since it exists, 1 for assets created ' +
      'before (they keep their hash and keep verifying)',
  }),
  owner: userDidSchema.meta({
    description:
      'The user who created the asset (`did:user:<sub>`); covered by `assetHash` from version 2',
  }),
  transactions: z.array(transactionSchema),
  /** The least settled of its evidences: failed, else pending, else anchored. */
  status: anchoringStatusSchema,
});
export type Asset = z.infer<typeof assetSchema>;
