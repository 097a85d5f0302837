import { z } from 'zod';

import { anchoringStatusSchema } from '../schemas/anchoring-status.js';
import { assetSchema } from '../schemas/asset.js';
import { fieldsParam } from './fields-param.js';
import { pageParams } from './page-params.js';

export const ASSET_FIELDS = Object.keys(assetSchema.shape);

/** Query of GET /assets (spec 4.3). */
export const assetListQuerySchema = z.strictObject({
  ...pageParams,
  fields: fieldsParam(ASSET_FIELDS).optional(),
  /** Only assets in this anchoring status (see `Asset.status`). */
  status: anchoringStatusSchema.optional(),
});
export type AssetListQuery = z.infer<typeof assetListQuerySchema>;
