import { z } from 'zod';

import { sentJsonObjectSchema } from '../schemas/json-object.js';
import { networkIdSchema } from '../schemas/network-id.js';
import { textSchema } from '../schemas/text.js';
import { REQUEST_LIMITS } from './request-limits.js';

/** Body creating an asset record; with its new trackID and its owner, `{assetId, data}` make its assetHash (version 2). */
export const createAssetBodySchema = z.strictObject({
  assetId: textSchema().min(1).max(REQUEST_LIMITS.assetIdMaxLength),
  data: sentJsonObjectSchema,
  networkId: networkIdSchema,
});
export type CreateAssetBody = z.infer<typeof createAssetBodySchema>;
