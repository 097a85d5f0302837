import type { AnchoringStatus } from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { Queryable } from '../queryable.js';
import { whereAnchoringStatus } from './anchoring-status.js';
import { refundPaidRecords } from './credit-refunds.js';
import { loadEvidences, type EvidenceRecord } from './evidences-repository.js';

/** A tracked asset with its evidences and the users it is shared with. */
export interface AssetRecord {
  /** uuid */
  id: string;
  /** `did:<ns>:trackid:<uuidv7>` */
  trackId: string;
  /** The owner: the user who created it. */
  userId: string;
  /** The caller's own identifier, unique per owner. */
  assetId: string;
  data: Record<string, unknown>;
  /** 64 lowercase hex characters. */
  assetHash: string;
  /**
   * The rule of `assetHash`: 1 covers `{assetId, data}` (equal assets of other users share it),
   * 2 also the trackID and owner (the asset's own key space).
   */
  hashVersion: 1 | 2;
  networkId: string;
  createdAt: Date;
  /** Ids of the users the owner shared it with, sorted. */
  sharedWith: string[];
  /** Ordered by timestamp, oldest first. */
  evidences: EvidenceRecord[];
}

/** An asset to store: everything but what the database or later events set. */
export type NewAsset = Omit<AssetRecord, 'createdAt' | 'sharedWith' | 'evidences'>;

export interface AssetListFilter {
  /** The assets this user owns, and those shared with them. */
  userId: string;
  /** Only assets in this anchoring status (the least settled of their evidences). */
  status?: AnchoringStatus;
  offset: number;
  limit: number;
  /** By creation time, then id, so that equal times page stably. */
  order: 'asc' | 'desc';
}

interface AssetRow {
  id: string;
  track_id: string;
  user_id: string;
  asset_id: string;
  data: Record<string, unknown>;
  asset_hash: string;
  hash_version: number;
  network_id: string;
  created_at: Date;
}

const assetColumns = [
  'id',
  'track_id',
  'user_id',
  'asset_id',
  'data',
  'asset_hash',
  'hash_version',
  'network_id',
  'created_at',
] as const;

function toAsset(row: AssetRow, sharedWith: string[], evidences: EvidenceRecord[]): AssetRecord {
  return {
    id: row.id,
    trackId: row.track_id,
    userId: row.user_id,
    assetId: row.asset_id,
    data: row.data,
    assetHash: row.asset_hash,
    // A check constraint keeps it 1 or 2.
    hashVersion: row.hash_version === 2 ? 2 : 1,
    networkId: row.network_id,
    createdAt: row.created_at,
    sharedWith,
    evidences,
  };
}

async function loadShares(
  db: Queryable,
  assets: readonly string[],
): Promise<Map<string, string[]>> {
  const byAsset = new Map<string, string[]>(assets.map((id) => [id, []]));
  if (assets.length === 0) return byAsset;
  const rows = await db('asset_shares')
    .whereIn('asset', assets)
    .orderBy(['asset', 'user_id'])
    .select<{ asset: string; user_id: string }[]>('asset', 'user_id');
  for (const row of rows) byAsset.get(row.asset)?.push(row.user_id);
  return byAsset;
}

async function withDetails(
  db: Queryable,
  rows: AssetRow[],
  withEvidences = true,
): Promise<AssetRecord[]> {
  const ids = rows.map((row) => row.id);
  const [shares, evidences] = await Promise.all([
    loadShares(db, ids),
    withEvidences ? loadEvidences(db, ids) : new Map<string, EvidenceRecord[]>(),
  ]);
  return rows.map((row) => toAsset(row, shares.get(row.id) ?? [], evidences.get(row.id) ?? []));
}

/**
 * Stores an asset (without evidences: insert its first one with `insertEvidence`). A repeated
 * assetId of the same owner surfaces as the database error (`assets_user_asset_id_unique`).
 */
export async function insertAsset(db: Queryable, asset: NewAsset): Promise<AssetRecord> {
  const [row] = await db('assets')
    .insert({
      id: asset.id,
      track_id: asset.trackId,
      user_id: asset.userId,
      asset_id: asset.assetId,
      // pg would send an array as a PostgreSQL array, not as JSON.
      data: JSON.stringify(asset.data),
      asset_hash: asset.assetHash,
      hash_version: asset.hashVersion,
      network_id: asset.networkId,
    })
    .returning<AssetRow[]>(assetColumns);
  if (row === undefined) throw new Error(`inserting asset ${asset.id} returned no row`);
  return toAsset(row, [], []);
}

/**
 * One asset by trackID with its shares, whoever owns it; undefined if none. With its evidences
 * too unless `withEvidences` is false (then `evidences` is empty): a busy asset has many, and
 * deciding who may write to it needs none.
 */
export async function findAsset(
  db: Queryable,
  trackId: string,
  { withEvidences = true }: { withEvidences?: boolean } = {},
): Promise<AssetRecord | undefined> {
  const row = await db('assets')
    .where('track_id', trackId)
    .first<AssetRow | undefined>(assetColumns);
  if (row === undefined) return undefined;
  const [asset] = await withDetails(db, [row], withEvidences);
  return asset;
}

/** Whether the user already has an asset of this assetId. */
export async function hasAssetId(db: Queryable, userId: string, assetId: string): Promise<boolean> {
  const row = await db('assets')
    .where({ user_id: userId, asset_id: assetId })
    .first<{ id: string } | undefined>('id');
  return row !== undefined;
}

/**
 * The assets of these trackIDs that exist, with their shares but not their evidences (enough to
 * decide who may read them and add to them), by trackID.
 */
export async function findAssetsByTrackIds(
  db: Queryable,
  trackIds: readonly string[],
): Promise<Map<string, AssetRecord>> {
  if (trackIds.length === 0) return new Map();
  const rows = await db('assets')
    .whereIn('track_id', [...new Set(trackIds)])
    .select<AssetRow[]>(assetColumns);
  const assets = await withDetails(db, rows, false);
  return new Map(assets.map((asset) => [asset.trackId, asset]));
}

/**
 * The given assets (by row id) with their shares, in no particular order; with their evidences
 * too unless `withEvidences` is false (then `evidences` is empty: enough to decide who may read).
 */
export async function findAssetsByIds(
  db: Queryable,
  ids: readonly string[],
  { withEvidences = true }: { withEvidences?: boolean } = {},
): Promise<AssetRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db('assets').whereIn('id', ids).select<AssetRow[]>(assetColumns);
  return withDetails(db, rows, withEvidences);
}

/** The assets a user may read: their own, and those shared with them; in a status if given. */
function readableAssets(
  db: Queryable,
  userId: string,
  status?: AnchoringStatus,
): Knex.QueryBuilder {
  const query = db('assets').where((readable) => {
    void readable
      .where('user_id', userId)
      .orWhereIn('id', db('asset_shares').where('user_id', userId).select('asset'));
  });
  if (status !== undefined) {
    whereAnchoringStatus(query, status, {
      table: 'evidences',
      ownerColumn: 'asset',
      ownerId: 'assets.id',
    });
  }
  return query;
}

function assertPageBound(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/**
 * A page of the assets the user owns or that are shared with them, each with its evidences, and
 * how many there are in all. Pass a transaction if the count must agree with the page under
 * concurrent writes.
 */
export async function listAssets(
  db: Queryable,
  filter: AssetListFilter,
): Promise<{ assets: AssetRecord[]; total: number }> {
  assertPageBound('offset', filter.offset);
  assertPageBound('limit', filter.limit);
  const rows = await readableAssets(db, filter.userId, filter.status)
    .orderBy([
      { column: 'created_at', order: filter.order },
      { column: 'id', order: filter.order },
    ])
    .offset(filter.offset)
    .limit(filter.limit)
    .select<AssetRow[]>(assetColumns);
  const count = await readableAssets(db, filter.userId, filter.status)
    .count({ total: '*' })
    .first<{ total: number } | undefined>();
  return { assets: await withDetails(db, rows), total: count?.total ?? 0 };
}

/** Lets `userId` read the asset and add evidences to it; false when it already could. */
export async function shareAsset(db: Queryable, asset: string, userId: string): Promise<boolean> {
  const inserted = await db('asset_shares')
    .insert({ asset, user_id: userId })
    .onConflict(['asset', 'user_id'])
    .ignore()
    .returning('user_id');
  return inserted.length > 0;
}

/** Withdraws a share; false when there was none. */
export async function unshareAsset(db: Queryable, asset: string, userId: string): Promise<boolean> {
  const removed = await db('asset_shares').where({ asset, user_id: userId }).delete();
  return removed === 1;
}

/**
 * Undoes the creation of an asset whose first evidence never left the anchoring queue: removes
 * that evidence and gives the owner's credit back, then removes the asset and its shares unless
 * it meanwhile got other evidences (then it stays). Use it in the transaction that withdrew the
 * queued record. Returns whether the asset was removed.
 */
export async function withdrawAsset(
  db: Queryable,
  asset: string,
  ownerId: string,
  evidenceId: number,
): Promise<boolean> {
  // The credit row first, then the asset: the order creating requests take them in (credit, then
  // the asset through their inserts' foreign keys), so a withdrawal cannot deadlock with them.
  const evidence = await db('evidences')
    .where({ id: evidenceId, asset })
    .first<{ id: number; anchor_record_id: number | null } | undefined>('id', 'anchor_record_id');
  if (evidence !== undefined) {
    await refundPaidRecords(
      db,
      evidence.anchor_record_id === null ? [] : [evidence.anchor_record_id],
      'asset creation withdrawn',
    );
    await db('evidences').where({ id: evidenceId, asset }).delete();
  }
  // Locked, so that no evidence can be added between the check and the delete.
  await db('assets').where('id', asset).forUpdate().first('id');
  const others = await db('evidences')
    .where('asset', asset)
    .first<{ id: number } | undefined>('id');
  if (others !== undefined) return false;
  await db('asset_shares').where('asset', asset).delete();
  const removed = await db('assets').where({ id: asset, user_id: ownerId }).delete();
  return removed === 1;
}

/**
 * Of these (asset, user) shares, the ones still there, each held (key share) until the caller's
 * transaction ends: withdrawing one waits for it, and one withdrawn first is not returned. What an
 * evidence written through a share checks in the transaction that writes it. Keys `asset user`.
 */
export async function holdAssetShares(
  trx: Queryable,
  shares: readonly { asset: string; userId: string }[],
): Promise<Set<string>> {
  if (shares.length === 0) return new Set();
  const rows = await trx('asset_shares')
    .whereIn(
      ['asset', 'user_id'],
      shares.map(({ asset, userId }) => [asset, userId]),
    )
    .orderBy(['asset', 'user_id'])
    .forKeyShare()
    .select<{ asset: string; user_id: string }[]>('asset', 'user_id');
  return new Set(rows.map((row) => `${row.asset} ${row.user_id}`));
}
