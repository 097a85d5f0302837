import { z } from 'zod';

import { assetSchema } from './asset.js';
import { assetFieldsSchema } from './asset-fields.js';
import { paginationSchema } from './pagination.js';

/** `data` of GET /assets without `fields` (spec 4.3): whole assets. */
export const assetListSchema = z.object({
  assets: z.array(assetSchema),
  pagination: paginationSchema,
});
export type AssetList = z.infer<typeof assetListSchema>;

/**
 * `data` of GET /assets as served and documented: whole assets, or with `fields` only the
 * members named (spec 4.3).
 */
export const assetPageSchema = z
  .object({
    assets: z.array(assetFieldsSchema),
    pagination: paginationSchema,
  })
  .meta({ id: 'AssetList' });
export type AssetPage = z.infer<typeof assetPageSchema>;
