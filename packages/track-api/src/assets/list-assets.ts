import { listAssets } from '@trustpoint/db';
import type { Asset, AssetFields, AssetListQuery, AssetPage } from '@trustpoint/domain';
import { assetView } from './asset-view.js';
import type { TrackServices } from './track-services.js';

/** An asset with only the requested top-level fields. */
export function pickFields(asset: Asset, fields: readonly string[]): AssetFields {
  return Object.fromEntries(
    fields.filter((field) => field in asset).map((field) => [field, asset[field as keyof Asset]]),
  );
}

/**
 * A page of the assets the caller owns and of those shared with them, newest first unless asked
 * otherwise (spec 4.3).
 */
export async function listReadableAssets(
  services: TrackServices,
  userId: string,
  query: AssetListQuery,
): Promise<AssetPage> {
  const { assets, total } = await listAssets(services.knex, {
    userId,
    ...(query.status === undefined ? {} : { status: query.status }),
    offset: query.offset,
    limit: query.limit,
    order: query.order,
  });
  const views = assets.map(assetView);
  return {
    assets: query.fields ? views.map((view) => pickFields(view, query.fields ?? [])) : views,
    pagination: { offset: query.offset, limit: query.limit, total, order: query.order },
  };
}
