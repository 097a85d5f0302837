import { withdrawEvidence, type User } from '@trustpoint/db';
import type { AddEvidenceBody, Transaction } from '@trustpoint/domain';
import { readableOrNotFound } from './readable-asset.js';
import { awaitEvidenceAnchor } from './register-evidence.js';
import { findAssetForEvidence, storeEvidence } from './store-evidences.js';
import type { TrackServices } from './track-services.js';

/**
 * Adds an evidence to an asset the caller owns or that is shared with them and, once it is mined,
 * returns it as the API shows it. The caller registers it: it is their `userOwner`, their credit
 * and their plan (which must include the asset's network). Durability and the 503 path are those
 * of `createAsset`. The evidences of concurrent requests are stored together (`storeEvidence`).
 */
export async function addEvidence(
  services: TrackServices,
  registrant: User,
  trackId: string,
  body: AddEvidenceBody,
): Promise<Transaction> {
  const asset = readableOrNotFound(await findAssetForEvidence(services, trackId), registrant);
  services.networks.requireForUser(asset.networkId, registrant.planNetworkIds);
  const evidence = await storeEvidence(services, {
    registrant,
    asset,
    metadata: body.metadata,
  });

  const receipt = await awaitEvidenceAnchor(services, evidence, (trx) =>
    withdrawEvidence(trx, evidence.id, registrant.id),
  );
  // The receipt says where it landed, as the row now does: no need to read it back.
  return {
    metadata: body.metadata,
    timestamp: evidence.timestamp,
    userOwner: evidence.userOwner,
    hash: evidence.hash,
    smartContract: receipt.smartContract,
    transactionHash: receipt.transactionHash,
  };
}
