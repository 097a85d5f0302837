import {
  constraintViolation,
  spendCredit,
  withdrawEvidence,
  type EvidenceRecord,
  type User,
} from '@trustpoint/db';
import { DomainError, type AddEvidenceBody, type Transaction } from '@trustpoint/domain';
import { getReadableAsset } from './readable-asset.js';
import { awaitEvidenceAnchor, registerEvidence, takeEvidenceSecond } from './register-evidence.js';
import type { TrackServices } from './track-services.js';

/**
 * Adds an evidence to an asset the caller owns or that is shared with them and, once it is mined,
 * returns it as the API shows it. The caller registers it: it is their `userOwner`, their credit
 * and their plan (which must include the asset's network). Durability and the 503 path are those
 * of `createAsset`.
 */
export async function addEvidence(
  services: TrackServices,
  registrant: User,
  trackId: string,
  body: AddEvidenceBody,
): Promise<Transaction> {
  const { knex, networks } = services;
  // Without its evidences: a busy asset has many, and the write needs none of them.
  const asset = await getReadableAsset(services, registrant, trackId, { withEvidences: false });
  networks.requireForUser(asset.networkId, registrant.planNetworkIds);

  // Taken before the transaction, in a statement of its own: the asset's clock row is then locked
  // for that statement only, not until commit, so evidences of a busy asset do not wait for each
  // other's whole transactions. A request that fails from here on leaves a gap in the asset's
  // seconds (harmless); a second is never handed out twice.
  const timestamp = await takeEvidenceSecond(services, knex, asset.assetHash);
  let evidence: EvidenceRecord;
  try {
    evidence = await knex.transaction(async (trx) => {
      if (!(await spendCredit(trx, registrant.id))) throw new DomainError('outOfCredits');
      return registerEvidence(services, trx, asset, registrant.id, body.metadata, timestamp);
    });
  } catch (error) {
    // The asset was withdrawn (its creation timed out) between the read and the insert.
    if (constraintViolation(error)?.kind === 'foreign-key') {
      throw new DomainError('notFound', { cause: error });
    }
    throw error;
  }

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
