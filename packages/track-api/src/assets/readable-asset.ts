import { findAsset, type AssetRecord, type User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { TrackServices } from './track-services.js';

/** Whether the user owns the asset or the owner shared it with them. */
export function canRead(asset: AssetRecord, user: User): boolean {
  return asset.userId === user.id || asset.sharedWith.includes(user.id);
}

/**
 * An asset its owner, or a user it is shared with, may read and add evidences to. To anyone else
 * it does not exist (404), so that others' assets cannot be probed for.
 */
export async function getReadableAsset(
  services: TrackServices,
  user: User,
  trackId: string,
): Promise<AssetRecord> {
  return readableOrNotFound(await findAsset(services.knex, trackId), user);
}

/** The asset found, if the user may read it; otherwise the same 404 as for no asset at all. */
export function readableOrNotFound(asset: AssetRecord | undefined, user: User): AssetRecord {
  if (!asset || !canRead(asset, user)) throw new DomainError('notFound');
  return asset;
}

/**
 * An asset of the caller's own (without its evidences), for what only its owner may do (sharing);
 * 404 otherwise.
 */
export async function getOwnAsset(
  services: TrackServices,
  owner: User,
  trackId: string,
): Promise<AssetRecord> {
  const asset = await findAsset(services.knex, trackId, { withEvidences: false });
  if (!asset || asset.userId !== owner.id) throw new DomainError('notFound');
  return asset;
}
