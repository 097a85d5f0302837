import { awaitAcknowledgement, type AnchorReceipt, type AnchorRequest } from '@trustpoint/chain';
import {
  DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
  EvidenceClockAheadError,
  holdsIdempotencyKey,
  insertEvidence,
  nextEvidenceTimestamp,
  type EvidenceRecord,
  type IdempotencyClaim,
  type NewEvidence,
  type Queryable,
} from '@trustpoint/db';
import {
  evidenceHash,
  evidenceKey,
  formatUserDid,
  SYNCHRONOUS_ACKNOWLEDGEMENT,
  type Acknowledgement,
  type JsonObject,
} from '@trustpoint/domain';
import { TooManyRequestsError } from '@trustpoint/http';
import type { Knex } from 'knex';
import type { TrackServices } from './track-services.js';

/** The asset an evidence is registered for: its row, on-chain key half, and network. */
export interface EvidenceTarget {
  id: string;
  assetHash: string;
  networkId: string;
}

/** The margin the services allow evidence timestamps ahead of the clock. */
export function maxEvidenceAheadSeconds(services: TrackServices): number {
  return services.maxEvidenceAheadSeconds ?? DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS;
}

/** The 429 for an asset whose evidence seconds would run too far ahead of the clock. */
export function evidenceClockAhead(
  retryAfterSeconds: number,
  maxAheadSeconds: number,
): TooManyRequestsError {
  return new TooManyRequestsError(
    `evidence timestamps of an asset would run more than ${String(maxAheadSeconds)} s ahead of the clock`,
    { retryAfterSeconds },
  );
}

/**
 * The second for a new evidence of `assetHash`: now, or one past the last one given, so that no
 * two evidences of an assetHash share an on-chain key (one evidence per second per assetHash). A
 * version 2 assetHash is one asset's, so is its clock; a version 1 one is shared by the assets of
 * every user with that assetId and data, and so is its clock. A 429 when that would be
 * more than `maxEvidenceAheadSeconds` ahead of the clock. On `services.knex` it is one statement
 * of its own, and the clock row is locked only for that statement.
 */
export async function takeEvidenceSecond(
  services: TrackServices,
  db: Queryable,
  assetHash: string,
): Promise<number> {
  const maxAhead = maxEvidenceAheadSeconds(services);
  try {
    return await nextEvidenceTimestamp(db, assetHash, Math.floor(services.now() / 1_000), maxAhead);
  } catch (error) {
    if (error instanceof EvidenceClockAheadError) {
      throw evidenceClockAhead(error.retryAfterSeconds, maxAhead);
    }
    throw error;
  }
}

/** An evidence ready to store, hashed at its timestamp, and what anchors it. */
export interface EvidenceDraft {
  evidence: Omit<NewEvidence, 'anchorRecordId'>;
  /** Queued under (assetHash, timestamp), the evidence's on-chain key. */
  anchor: AnchorRequest;
}

/** The evidence a registrant adds to the target at `timestamp` (from the asset's clock). */
export function evidenceDraft(
  target: EvidenceTarget,
  registrantId: string,
  metadata: JsonObject,
  timestamp: number,
): EvidenceDraft {
  const userOwner = formatUserDid(registrantId);
  const hash = evidenceHash({ metadata, timestamp, userOwner });
  return {
    evidence: {
      asset: target.id,
      assetHash: target.assetHash,
      metadata,
      timestamp,
      userOwner,
      hash,
      networkId: target.networkId,
    },
    anchor: {
      networkId: target.networkId,
      kind: 'evidence',
      recordKey: evidenceKey(target.assetHash, timestamp),
      hash,
      timestamp,
      // Every evidence costs its registrant a credit (an asset's first one comes with the asset's).
      paidBy: registrantId,
    },
  };
}

/**
 * Inside the request's transaction: hashes the evidence at its `timestamp` (from
 * `takeEvidenceSecond`), queues it for anchoring under (assetHash, timestamp) and stores it
 * linked to its anchor record.
 */
export async function registerEvidence(
  services: TrackServices,
  trx: Knex.Transaction,
  target: EvidenceTarget,
  registrantId: string,
  metadata: JsonObject,
  timestamp: number,
): Promise<EvidenceRecord> {
  const { evidence, anchor } = evidenceDraft(target, registrantId, metadata, timestamp);
  // Readiness was checked by the request: one acknowledged pending waits in the queue.
  const anchorRecordId = await services.engine.enqueue(trx, anchor, { queueWhenNotReady: true });
  return insertEvidence(trx, { ...evidence, anchorRecordId });
}

/**
 * Before anything is stored: a request that would wait for a network that cannot anchor now fails
 * fast (503); one acknowledged pending is stored and waits in the queue.
 */
export function requireReadyUnlessPending(
  services: TrackServices,
  networkId: string,
  acknowledgement: Acknowledgement | undefined,
): void {
  if (acknowledgement?.onTimeout !== 'accept') services.engine.requireReady(networkId);
}

/**
 * Waits for the evidence as the acknowledgement says (synchronously by default): its receipt once
 * it is mined, undefined when it is acknowledged pending. When a synchronous wait ends first, an evidence
 * still waiting in the queue is withdrawn with `withdraw` (in the transaction that cancels its
 * record) and the error is rethrown (503); one already sent stays, will be anchored, and is
 * acknowledged pending. So does one whose request lost its `Idempotency-Key` (`idempotency`) to a
 * retry meanwhile: the retry may have answered from it already.
 */
export async function awaitEvidenceAnchor(
  services: TrackServices,
  evidence: EvidenceRecord,
  acknowledgement: Acknowledgement | undefined,
  withdraw: (trx: Queryable) => Promise<unknown>,
  idempotency?: IdempotencyClaim,
): Promise<AnchorReceipt | undefined> {
  const recordId = evidence.anchorRecordId;
  if (recordId === null) throw new Error(`evidence ${String(evidence.id)} was not queued`);
  const wait = await awaitAcknowledgement(services.engine, {
    acknowledgement: acknowledgement ?? SYNCHRONOUS_ACKNOWLEDGEMENT,
    recordIds: [recordId],
    withdraw: () =>
      services.knex.transaction(async (trx) => {
        // The key stays locked until the withdrawal commits: no retry takes it over meanwhile.
        if (idempotency !== undefined && !(await holdsIdempotencyKey(trx, idempotency))) {
          return false;
        }
        const withdrawn = await services.engine.cancel(trx, recordId);
        if (withdrawn) await withdraw(trx);
        return withdrawn;
      }),
  });
  return wait.anchored ? wait.receipts[0] : undefined;
}
