import {
  constraintViolation,
  findAsset,
  hasAssetId,
  insertAsset,
  recordAudit,
  spendCredit,
  withdrawAsset,
  type AssetRecord,
  type EvidenceRecord,
  type IdempotencyClaim,
  type User,
} from '@trustpoint/db';
import {
  ASSET_HASH_VERSION_2,
  assetHashV2,
  DomainError,
  formatUserDid,
  newTrackId,
  newUuidV7,
  type Acknowledgement,
  type CreateAssetBody,
} from '@trustpoint/domain';
import { commitIdempotentChange } from '@trustpoint/http';
import { assetAudit } from './asset-audit.js';
import {
  awaitEvidenceAnchor,
  registerEvidence,
  requireReadyUnlessPending,
  takeEvidenceSecond,
} from './register-evidence.js';
import type { TrackServices } from './track-services.js';

/**
 * The metadata of an asset's first evidence. Empty on purpose: its on-chain key
 * (assetHash, timestamp) already commits to the asset (trackID, owner, assetId and data), so the
 * first evidence proves the asset existed with that data at that second.
 */
export const CREATION_METADATA = {};

function conflictOf(error: unknown): DomainError | undefined {
  const violation = constraintViolation(error);
  if (violation?.kind === 'unique' && violation.constraint === 'assets_user_asset_id_unique') {
    return new DomainError('assetIdAlreadyRegistered', { cause: error });
  }
  return undefined;
}

/**
 * Creates an asset and registers its first evidence, and answers once that evidence is mined, or
 * at once with it pending when the acknowledgement says so (`Prefer: respond-async`).
 *
 * One database transaction spends the credit (one per asset, its first evidence included),
 * stores the asset and evidence and queues the evidence for anchoring: a refused request (no
 * credit, repeated assetId) changes nothing. If the chain does not mine it within a synchronous
 * wait, an evidence still queued is withdrawn with the asset, the credit is given back and the
 * request fails with 503; one already sent stays, will be anchored, and is answered pending.
 */
export async function createAsset(
  services: TrackServices,
  owner: User,
  body: CreateAssetBody,
  acknowledgement?: Acknowledgement,
  requestId: string | null = null,
  /** The request's `Idempotency-Key`, committed with the asset (naming its trackID). */
  idempotency?: IdempotencyClaim,
): Promise<AssetRecord> {
  const { knex, networks } = services;
  const networkId = String(body.networkId);
  networks.requireForUser(networkId, owner.planNetworkIds, 'body.networkId');
  requireReadyUnlessPending(services, networkId, acknowledgement);
  const trackId = newTrackId(services.namespace);

  // Room on the network's queue for the first evidence, held until the store ends: past its
  // limit, 503 before anything is stored.
  const admission = await services.engine.admit(networkId, 1);

  let asset: AssetRecord;
  let first: EvidenceRecord;
  try {
    const storing = () =>
      knex.transaction(async (trx) => {
        if (!(await spendCredit(trx, owner.id))) {
          // A repeat is a 409 even without credit left, as for certificates: credits would not help.
          const repeated = await hasAssetId(trx, owner.id, body.assetId);
          throw new DomainError(repeated ? 'assetIdAlreadyRegistered' : 'outOfCredits');
        }
        const inserted = await insertAsset(trx, {
          id: newUuidV7(),
          trackId,
          userId: owner.id,
          assetId: body.assetId,
          data: body.data,
          // Version 2: the asset's own key space, so its evidence seconds are its own.
          assetHash: assetHashV2({
            trackID: trackId,
            owner: formatUserDid(owner.id),
            assetId: body.assetId,
            data: body.data,
          }),
          hashVersion: ASSET_HASH_VERSION_2,
          networkId,
        });
        await commitIdempotentChange(trx, idempotency, trackId);
        // In the transaction: a refused creation leaves no clock behind, and a new asset's clock
        // row is its own (a version 2 assetHash belongs to one asset).
        const timestamp = await takeEvidenceSecond(services, trx, inserted.assetHash);
        const evidence = await registerEvidence(
          services,
          trx,
          inserted,
          owner.id,
          CREATION_METADATA,
          timestamp,
        );
        await recordAudit(trx, [
          assetAudit(owner, requestId, 'asset.create', trackId, {
            assetId: body.assetId,
            networkId,
            assetHash: inserted.assetHash,
            evidenceTimestamp: evidence.timestamp,
          }),
        ]);
        return [inserted, evidence] as const;
      });
    [asset, first] = await admission.during(storing);
  } catch (error) {
    throw conflictOf(error) ?? error;
  }

  await awaitEvidenceAnchor(
    services,
    first,
    acknowledgement,
    async (trx) => {
      const removed = await withdrawAsset(trx, asset.id, owner.id, first.id);
      await recordAudit(trx, [
        assetAudit(owner, requestId, 'asset.withdraw', trackId, {
          reason: 'not anchored within the synchronous wait',
          removed,
        }),
      ]);
    },
    idempotency,
  );
  const created = await findAsset(knex, trackId);
  if (!created) throw new Error(`asset ${trackId} vanished after anchoring`);
  return created;
}
