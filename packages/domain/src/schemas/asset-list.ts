import { z } from 'zod';

import { assetSchema } from './asset.js';
import { paginationSchema } from './pagination.js';

/** `data` of GET /assets (spec 4.3). */
export const assetListSchema = z.object({
  assets: z.array(assetSchema),
  pagination: paginationSchema,
});
export type AssetList = z.infer<typeof assetListSchema>;
