import { recordAudit, withdrawEvidence, type IdempotencyClaim, type User } from '@trustpoint/db';
import type { Acknowledgement, AddEvidenceBody, Transaction } from '@trustpoint/domain';
import { assetAudit } from './asset-audit.js';
import { transactionView } from './asset-view.js';
import { readableOrNotFound } from './readable-asset.js';
import { awaitEvidenceAnchor, requireReadyUnlessPending } from './register-evidence.js';
import { findAssetForEvidence, storeEvidence } from './store-evidences.js';
import type { TrackServices } from './track-services.js';

/**
 * Adds an evidence to an asset the caller owns or that is shared with them and returns it as the
 * API shows it: once it is mined, or at once pending as the acknowledgement says. The caller registers it: it is their `userOwner`, their credit
 * and their plan (which must include the asset's network). Durability and the 503 path are those
 * of `createAsset`. The evidences of concurrent requests are stored together (`storeEvidence`).
 */
export async function addEvidence(
  services: TrackServices,
  registrant: User,
  trackId: string,
  body: AddEvidenceBody,
  acknowledgementFor?: (networkId: string) => Acknowledgement,
  requestId: string | null = null,
  /** The request's `Idempotency-Key`, committed with the evidence. */
  idempotency?: IdempotencyClaim,
): Promise<Transaction> {
  const asset = readableOrNotFound(await findAssetForEvidence(services, trackId), registrant);
  services.networks.requireForUser(asset.networkId, registrant.planNetworkIds);
  const acknowledgement = acknowledgementFor?.(asset.networkId);
  requireReadyUnlessPending(services, asset.networkId, acknowledgement);
  // Past the network's queue limit, 503 before anything is stored.
  const admission = await services.engine.admit(asset.networkId, 1);
  const storing = () =>
    storeEvidence(services, {
      registrant,
      asset,
      metadata: body.metadata,
      requestId,
      idempotency,
    });
  const evidence = await admission.during(storing);

  const receipt = await awaitEvidenceAnchor(
    services,
    evidence,
    acknowledgement,
    async (trx) => {
      await withdrawEvidence(trx, evidence.id);
      await recordAudit(trx, [
        assetAudit(registrant, requestId, 'evidence.withdraw', asset.trackId, {
          evidenceTimestamp: evidence.timestamp,
          reason: 'not anchored within the synchronous wait',
        }),
      ]);
    },
    idempotency,
  );
  // The receipt says where it landed, as the row now does: no need to read it back.
  return transactionView(
    receipt === undefined
      ? evidence
      : {
          ...evidence,
          smartContract: receipt.smartContract,
          transactionHash: receipt.transactionHash,
          anchoredAt: receipt.anchoredAt,
          status: 'anchored',
        },
  );
}
