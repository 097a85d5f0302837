import {
  auditEntriesInsert,
  batchedLookup,
  Batcher,
  creditsSpending,
  constraintViolation,
  findAssetsByTrackIds,
  findCreditBalances,
  holdAssetShares,
  insertEvidences,
  insertEvidencesWithWrites,
  lockCreditBalances,
  evidenceClockRetryAfter,
  nextEvidenceTimestamps,
  onePer,
  retryTransientConflicts,
  ShortOfCredit,
  type AssetRecord,
  type EvidenceRecord,
  type IdempotencyClaim,
  type ItemOutcome,
  type User,
} from '@trustpoint/db';
import { DomainError, type JsonObject } from '@trustpoint/domain';
import { commitIdempotentChanges, keyTakenOver, type TooManyRequestsError } from '@trustpoint/http';
import { assetAudit } from './asset-audit.js';
import { evidenceClockAhead, evidenceDraft, maxEvidenceAheadSeconds } from './register-evidence.js';
import type { TrackServices } from './track-services.js';

/** An evidence a request adds: who registers it, to which asset (already found readable). */
export interface EvidenceToStore {
  registrant: User;
  asset: AssetRecord;
  metadata: JsonObject;
  /** The request's id, for the audit log. */
  requestId?: string | null;
  /** The request's `Idempotency-Key`, committed with the evidence (`evidenceResource`). */
  idempotency?: IdempotencyClaim | undefined;
}

/**
 * What an `Idempotency-Key` names of an evidence it made: its asset and second (unique per asset),
 * known before the evidence is written.
 */
export function evidenceResource(trackId: string, timestamp: number): string {
  return `${String(timestamp)} ${trackId}`;
}

/** The asset and second an `Idempotency-Key` names (`evidenceResource`). */
export function parseEvidenceResource(resource: string): { trackId: string; timestamp: number } {
  const space = resource.indexOf(' ');
  return { timestamp: Number(resource.slice(0, space)), trackId: resource.slice(space + 1) };
}

/**
 * Stores the evidences of any number of requests, each with its own outcome.
 *
 * First, evidences a user adds to an asset shared with them, beyond the credit they hold, are
 * refused (429) before they take any second: the seconds are the owner's asset's, and a user
 * holding no credit could otherwise run its clock ahead with refused requests until the owner's
 * own evidences are refused and the rest stamped in the future. (An owner's evidences are checked
 * where they are paid for: a second a refused one takes is its own asset's.)
 *
 * Their seconds are taken next, in one statement of its own: the assets' clock rows are locked
 * for that statement only, not until commit, so evidences of a busy asset never wait for each
 * other's transactions. A request that fails from there on leaves a gap in its asset's seconds
 * (harmless); a second is never handed out twice. An asset whose seconds would run more than
 * `maxEvidenceAheadSeconds` ahead of the clock gets as many as fit, one at a time, and the rest
 * of its requests are refused (429 with Retry-After) with nothing stored. Then one statement on
 * its own locks the registrants' credit balances (in user order), commits the keys, and queues,
 * stores and pays for the evidences (`writeEvidencesAtOnce`); when a registrant is short of
 * credit, one transaction does the same and refuses those without credit (429).
 */
async function storeEvidences(
  services: TrackServices,
  items: readonly EvidenceToStore[],
): Promise<ItemOutcome<EvidenceRecord>[]> {
  const unpaid = await sharedBeyondCredit(services, items);
  if (unpaid.size === 0) return storePaidEvidences(services, items);
  return outcomesOfKept(
    items.length,
    items.flatMap((_, index) => (unpaid.has(index) ? [] : [index])),
    (paid) =>
      storePaidEvidences(
        services,
        paid.map((index) => items[index] as EvidenceToStore),
      ),
    () => ({ ok: false, error: new DomainError('outOfCredits') }),
  );
}

/**
 * The outcomes of `count` items of which only those at the indexes `kept` are run, together and
 * in order (`run`); every other item gets its `refusal`.
 */
async function outcomesOfKept<R>(
  count: number,
  kept: readonly number[],
  run: (kept: readonly number[]) => Promise<ItemOutcome<R>[]>,
  refusal: (index: number) => ItemOutcome<R>,
): Promise<ItemOutcome<R>[]> {
  const outcomes = Array.from({ length: count }, (_, index) => refusal(index));
  if (kept.length === 0) return outcomes;
  const ran = await run(kept);
  kept.forEach((index, position) => {
    outcomes[index] = ran[position] as ItemOutcome<R>;
  });
  return outcomes;
}

/**
 * The evidences (their indexes) added to assets shared with their registrant beyond the credit
 * the registrant holds now, counting the group's evidences of each such registrant in order. No
 * query when every evidence is its owner's.
 */
async function sharedBeyondCredit(
  services: TrackServices,
  items: readonly EvidenceToStore[],
): Promise<Set<number>> {
  const sharers = new Set(
    items.flatMap(({ registrant, asset }) =>
      registrant.id === asset.userId ? [] : [registrant.id],
    ),
  );
  const unpaid = new Set<number>();
  if (sharers.size === 0) return unpaid;
  const balances = await findCreditBalances(services.knex, [...sharers]);
  const used = new Map<string, number>();
  items.forEach(({ registrant, asset }, index) => {
    if (!sharers.has(registrant.id)) return;
    const count = (used.get(registrant.id) ?? 0) + 1;
    used.set(registrant.id, count);
    if (registrant.id !== asset.userId && count > (balances.get(registrant.id) ?? 0)) {
      unpaid.add(index);
    }
  });
  return unpaid;
}

/** `storeEvidences` once every evidence added to a shared asset is within its registrant's credit. */
async function storePaidEvidences(
  services: TrackServices,
  items: readonly EvidenceToStore[],
): Promise<ItemOutcome<EvidenceRecord>[]> {
  const nowSeconds = Math.floor(services.now() / 1_000);
  const maxAhead = maxEvidenceAheadSeconds(services);
  const counts = new Map<string, number>();
  for (const { asset } of items)
    counts.set(asset.assetHash, (counts.get(asset.assetHash) ?? 0) + 1);
  const next = await nextEvidenceTimestamps(services.knex, counts, nowSeconds, maxAhead);
  const refused = new Map<string, TooManyRequestsError>();
  const timestamps: (number | undefined)[] = [];
  for (const { asset } of items) {
    const hash = asset.assetHash;
    const second = next.get(hash);
    if (second !== undefined) {
      next.set(hash, second + 1);
      timestamps.push(second);
      continue;
    }
    // The asset's whole group did not fit: the seconds that still do, one at a time.
    const one = refused.has(hash)
      ? undefined
      : (
          await nextEvidenceTimestamps(services.knex, new Map([[hash, 1]]), nowSeconds, maxAhead)
        ).get(hash);
    if (one === undefined && !refused.has(hash)) {
      refused.set(
        hash,
        evidenceClockAhead(
          await evidenceClockRetryAfter(services.knex, hash, nowSeconds, maxAhead),
          maxAhead,
        ),
      );
    }
    timestamps.push(one);
  }
  return outcomesOfKept(
    items.length,
    items.flatMap((_, index) => (timestamps[index] === undefined ? [] : [index])),
    (timed) =>
      storeTimedEvidences(
        services,
        timed.map((index) => items[index] as EvidenceToStore),
        timed.map((index) => timestamps[index] as number),
      ),
    (index) => ({
      ok: false,
      error: refused.get((items[index] as EvidenceToStore).asset.assetHash),
    }),
  );
}

/** `storeEvidences` once each evidence holds its second. */
async function storeTimedEvidences(
  services: TrackServices,
  items: readonly EvidenceToStore[],
  timestamps: readonly number[],
): Promise<ItemOutcome<EvidenceRecord>[]> {
  try {
    return await writeEvidences(services, items, timestamps);
  } catch (error) {
    if (constraintViolation(error)?.kind !== 'foreign-key') throw error;
    // An asset was withdrawn (its creation timed out) after it was read: those requests get 404,
    // the others are written again with the seconds they already hold.
    const existing = await findAssetsByTrackIds(
      services.knex,
      items.map(({ asset }) => asset.trackId),
    );
    const gone = items.map(({ asset }) => !existing.has(asset.trackId));
    if (!gone.includes(true)) throw error;
    return outcomesOfKept(
      items.length,
      items.flatMap((_, index) => (gone[index] === true ? [] : [index])),
      (kept) =>
        writeEvidences(
          services,
          kept.map((index) => items[index] as EvidenceToStore),
          kept.map((index) => timestamps[index] as number),
        ),
      () => ({ ok: false, error: new DomainError('notFound') }),
    );
  }
}

async function writeEvidences(
  services: TrackServices,
  items: readonly EvidenceToStore[],
  timestamps: readonly number[],
): Promise<ItemOutcome<EvidenceRecord>[]> {
  return (
    (await writeEvidencesAtOnce(services, items, timestamps)) ??
    writeEvidencesLocked(services, items, timestamps)
  );
}

/** An evidence its registrant adds to an asset shared with them, not their own. */
const writtenThroughShare = ({ registrant, asset }: EvidenceToStore): boolean =>
  registrant.id !== asset.userId;

/** Registrants found short of credit lately: their groups go the locked way. */
const shortOfCredit = onePer((_services: TrackServices) => new ShortOfCredit());

/**
 * The group in one statement that runs on its own and commits as it ends
 * (`insertEvidencesWithWrites`): the registrants' balances locked in user order, the requests'
 * keys committed, then each evidence queued, stored, paid for and audited. One round trip where
 * the locked way takes five. Undefined, with nothing written, when a registrant was short of
 * credit lately or would spend more than they hold (the balance's check fails the statement):
 * the locked way then decides who is refused.
 */
async function writeEvidencesAtOnce(
  services: TrackServices,
  items: readonly EvidenceToStore[],
  timestamps: readonly number[],
): Promise<ItemOutcome<EvidenceRecord>[] | undefined> {
  if (shortOfCredit(services).any(items.map(({ registrant }) => registrant.id))) return undefined;
  const writes = items.map((item, index) => {
    const timestamp = timestamps[index] as number;
    const { evidence, anchor } = evidenceDraft(
      item.asset,
      item.registrant.id,
      item.metadata,
      timestamp,
    );
    return {
      evidence,
      record: anchor,
      payerId: item.registrant.id,
      throughShare: writtenThroughShare(item),
      audit: assetAudit(item.registrant, item.requestId, 'evidence.add', item.asset.trackId, {
        evidenceTimestamp: evidence.timestamp,
        hash: evidence.hash,
      }),
      idempotency: item.idempotency,
      resource: evidenceResource(item.asset.trackId, timestamp),
    };
  });
  let written;
  try {
    written = await retryTransientConflicts(() =>
      // Readiness was checked per request: one acknowledged pending waits in the queue.
      services.engine.queueingBy(
        writes.map(({ record }) => record),
        { queueWhenNotReady: true },
        () => insertEvidencesWithWrites(services.knex, writes),
      ),
    );
  } catch (error) {
    if (constraintViolation(error)?.constraint === 'credits_balance_check') return undefined;
    throw error;
  }
  return written.map((outcome, index): ItemOutcome<EvidenceRecord> => {
    switch (outcome.kind) {
      case 'stored':
        return { ok: true, value: outcome.evidence };
      case 'keyLost':
        return { ok: false, error: keyTakenOver(items[index]?.idempotency?.key ?? '') };
      case 'withoutBalance':
        // No balance at all reads as none left, as the locked way reads it.
        return { ok: false, error: new DomainError('outOfCredits') };
      case 'unshared':
        // Shared when read, no longer as it was written: the asset is not theirs to read now.
        return { ok: false, error: new DomainError('notFound') };
    }
  });
}

/**
 * The locked way: one transaction locks the registrants' balances, commits the keys, refuses
 * those without credit (429), and queues, stores and pays for the rest.
 */
async function writeEvidencesLocked(
  services: TrackServices,
  items: readonly EvidenceToStore[],
  timestamps: readonly number[],
): Promise<ItemOutcome<EvidenceRecord>[]> {
  return retryTransientConflicts(() =>
    services.knex.transaction(async (trx) => {
      const outcomes: ItemOutcome<EvidenceRecord>[] = items.map(() => ({
        ok: false,
        error: new DomainError('outOfCredits'),
      }));
      const credits = await lockCreditBalances(
        trx,
        items.map(({ registrant }) => registrant.id),
      );
      // The shares evidences are written through, held until this commits: one withdrawn since
      // the asset was read leaves its evidence out (404), as the group's statement does.
      const shared = await holdAssetShares(
        trx,
        items
          .filter(writtenThroughShare)
          .map(({ registrant, asset }) => ({ asset: asset.id, userId: registrant.id })),
      );
      const unshared = new Set(
        items.flatMap((item, index) =>
          writtenThroughShare(item) && !shared.has(`${item.asset.id} ${item.registrant.id}`)
            ? [index]
            : [],
        ),
      );
      for (const index of unshared) {
        outcomes[index] = { ok: false, error: new DomainError('notFound') };
      }
      // Each key is committed first and stays locked until the transaction ends; a request that
      // lost its key to a retry is refused (409) alone. One refused later (no credit) leaves its
      // key naming an evidence that does not exist: its 429 is stored once the group commits, and
      // should the process die first, a retry finds no evidence and runs again.
      const keyed = new Set<number>();
      const refused = await commitIdempotentChanges(
        trx,
        items.map((item, index) => ({
          claim: item.idempotency,
          resource: evidenceResource(item.asset.trackId, timestamps[index] as number),
        })),
      );
      refused.forEach((error, index) => {
        if (error !== undefined) outcomes[index] = { ok: false, error };
        else if (!unshared.has(index)) keyed.add(index);
      });
      const spent = new Map<string, number>();
      const accepted = items.flatMap((item, index) => {
        if (!keyed.has(index)) return [];
        const userId = item.registrant.id;
        const used = spent.get(userId) ?? 0;
        if ((credits.get(userId) ?? 0) <= used) {
          shortOfCredit(services).mark(userId);
          return [];
        }
        spent.set(userId, used + 1);
        return [index];
      });
      if (accepted.length === 0) return outcomes;

      const drafts = accepted.map((index) => {
        const { registrant, asset, metadata } = items[index] as EvidenceToStore;
        return evidenceDraft(asset, registrant.id, metadata, timestamps[index] as number);
      });
      // Readiness was checked per request: one acknowledged pending waits in the queue.
      const recordIds = await services.engine.enqueueAll(
        trx,
        drafts.map(({ anchor }) => anchor),
        { queueWhenNotReady: true },
      );
      // The evidences, the credits spent and the audit entries of the group: one statement.
      const stored = await insertEvidences(
        trx,
        drafts.map(({ evidence }, position) => ({
          ...evidence,
          anchorRecordId: recordIds[position] as number,
        })),
        [
          creditsSpending(trx, spent),
          auditEntriesInsert(
            trx,
            accepted.map((index, position) => {
              const { registrant, asset, requestId } = items[index] as EvidenceToStore;
              const { evidence } = drafts[position] as (typeof drafts)[number];
              return assetAudit(registrant, requestId, 'evidence.add', asset.trackId, {
                evidenceTimestamp: evidence.timestamp,
                hash: evidence.hash,
              });
            }),
          ),
        ],
      );
      accepted.forEach((index, position) => {
        outcomes[index] = { ok: true, value: stored[position] as EvidenceRecord };
      });
      return outcomes;
    }),
  );
}

/** Per set of services: the evidences of concurrent requests, stored together. */
const evidenceBatcher = onePer(
  (services: TrackServices) =>
    new Batcher((items: EvidenceToStore[]) => storeEvidences(services, items)),
);

/** Per set of services: the asset reads of concurrent requests, one query for those waiting. */
const assetLookup = onePer((services: TrackServices) =>
  batchedLookup((trackIds: string[]) => findAssetsByTrackIds(services.knex, trackIds)),
);

/**
 * Stores one request's evidence together with those of the requests that arrive with it (one
 * transaction for all); rejects with its own error (outOfCredits, notFound) when refused.
 */
export function storeEvidence(
  services: TrackServices,
  evidence: EvidenceToStore,
): Promise<EvidenceRecord> {
  return evidenceBatcher(services).submit(evidence);
}

/**
 * The asset of a trackID with its shares and without its evidences, read together with the
 * assets other requests ask for at the same time.
 */
export function findAssetForEvidence(
  services: TrackServices,
  trackId: string,
): Promise<AssetRecord | undefined> {
  return assetLookup(services)(trackId);
}
