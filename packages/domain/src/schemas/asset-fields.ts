import { z } from 'zod';

import { assetSchema } from './asset.js';

/**
 * An asset as GET /assets lists it: without `?fields=` a whole Asset, with it only the top-level
 * members named. Hence every member is optional here.
 */
export const assetFieldsSchema = assetSchema.partial().meta({
  id: 'AssetFields',
  description:
    'A listed asset. Without `fields`, a whole asset (every member present). With `fields`, ' +
    'only the members named (e.g. `fields=trackID,assetHash`).',
});
export type AssetFields = z.infer<typeof assetFieldsSchema>;
