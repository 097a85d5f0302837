import {
  findUser,
  recordAudit,
  shareAsset,
  unshareAsset,
  type AssetRecord,
  type User,
} from '@trustpoint/db';
import { DomainError, formatUserDid, parseUserDid } from '@trustpoint/domain';
import { assetAudit } from './asset-audit.js';
import { getOwnAsset } from './readable-asset.js';
import type { TrackServices } from './track-services.js';

/** Who an asset is shared with, as the share routes answer. */
export interface AssetShares {
  trackID: string;
  /** `did:user:<sub>` of each user who may read the asset and add evidences to it. */
  sharedWith: string[];
}

export function sharesView(asset: AssetRecord): AssetShares {
  return { trackID: asset.trackId, sharedWith: asset.sharedWith.map(formatUserDid) };
}

function invalidUser(error: string): DomainError {
  return new DomainError('validation', { errors: [{ field: 'path.userDid', error }] });
}

/** The users the caller's asset is shared with; only its owner may see them. */
export async function getAssetShares(
  services: TrackServices,
  owner: User,
  trackId: string,
): Promise<AssetShares> {
  return sharesView(await getOwnAsset(services, owner, trackId));
}

/**
 * Lets another user read the caller's asset and add evidences to it (with their own credits).
 * Sharing again changes nothing. Only the owner may share (404 for anyone else).
 */
export async function shareAssetWith(
  services: TrackServices,
  owner: User,
  trackId: string,
  userDid: string,
  requestId: string | null = null,
): Promise<AssetShares> {
  const asset = await getOwnAsset(services, owner, trackId);
  const userId = parseUserDid(userDid);
  if (userId === owner.id) throw invalidUser('The owner always has access');
  if (!(await findUser(services.knex, userId))) throw invalidUser('No such user');
  await services.knex.transaction(async (trx) => {
    if (await shareAsset(trx, asset.id, userId)) {
      await recordAudit(trx, [assetAudit(owner, requestId, 'asset.share', trackId, { userId })]);
    }
  });
  return getAssetShares(services, owner, trackId);
}

/** Withdraws a share; 404 when the asset is not the caller's or was not shared with that user. */
export async function unshareAssetWith(
  services: TrackServices,
  owner: User,
  trackId: string,
  userDid: string,
  requestId: string | null = null,
): Promise<AssetShares> {
  const asset = await getOwnAsset(services, owner, trackId);
  const userId = parseUserDid(userDid);
  await services.knex.transaction(async (trx) => {
    if (!(await unshareAsset(trx, asset.id, userId))) throw new DomainError('notFound');
    await recordAudit(trx, [assetAudit(owner, requestId, 'asset.unshare', trackId, { userId })]);
  });
  return getAssetShares(services, owner, trackId);
}
