import { awaitAcknowledgement, type AnchorReceipt } from '@trustpoint/chain';
import {
  Batcher,
  constraintViolation,
  findCertificateRepeats,
  holdsIdempotencyKey,
  insertCertificatesWithWrites,
  lockCreditBalances,
  onePer,
  recordAudit,
  retryTransientConflicts,
  ShortOfCredit,
  unanchoredTrustpoint,
  withdrawCertificate,
  type CertificateConflict,
  type CertificateRecord,
  type CertificateWithWrites,
  type ItemOutcome,
  type NewAuditEntry,
  type NewCertificate,
  type NewTrustpoint,
  type IdempotencyClaim,
  type User,
} from '@trustpoint/db';
import {
  DomainError,
  newCertId,
  newUuidV7,
  SYNCHRONOUS_ACKNOWLEDGEMENT,
  type Acknowledgement,
  type CertificateType,
  type ErrorCode,
} from '@trustpoint/domain';
import { commitIdempotentChanges, keyTakenOver } from '@trustpoint/http';
import type { Knex } from 'knex';
import { certificateAudit } from './certificate-audit.js';
import { requireExpiresAfter } from './certificate-expiry.js';
import { certificateHashV2 } from './certificate-hash-v2.js';
import type { CertificateServices } from './certificate-services.js';
import { trustpointAnchorRequest } from './next-trustpoint.js';
import { qualifiedSignature } from './qualified-signature.js';

/** A certificate to create, once its kind-specific part has been hashed. */
export interface CertificateDraft {
  type: CertificateType;
  networkId: string;
  name: string;
  description: string;
  /** What the certificate shows as `data.content`; for asset certificates, the hashed object. */
  content: Record<string, unknown>;
  /**
   * The unsalted digest of what is certified, by its type's version 1 rule (DESIGN.md 3): kept for
   * repeats (409) and `/hash/` lookups. `data.hash` is the version 2 root made at creation.
   */
  hash: string;
  /** `sha256(bytes)` of a file, or of what a URL answered. */
  fileHash: string | null;
  expires: number | null;
  public: boolean;
  certificatePin: string | null;
  externalId: string | null;
}

export interface CreateCertificateOptions {
  /** Also sign it with the service key: a Signature trustpoint at `issuedOn + 1`. */
  qualified: boolean;
  /** How long to wait for the trustpoints, and what a timeout does; synchronous by default. */
  acknowledgement?: Acknowledgement;
  /**
   * Extra work inside the creating transaction, once the certificate is written (publishing a
   * file records it here): it commits or rolls back together with the certificate.
   */
  inTransaction?: (trx: Knex.Transaction) => Promise<void>;
  /** The request's id, recorded with the creation in the audit log and on its log lines. */
  requestId?: string | null;
  /**
   * The request's `Idempotency-Key`, committed with the certificate (naming its certID), so that a
   * retry after a crash between the commit and the answer gets this certificate, not a second one.
   */
  idempotency?: IdempotencyClaim | undefined;
}

/** Thrown inside a savepoint to undo the cancellations made before it. */
class AlreadySentError extends Error {}

/**
 * Withdraws every queued record of a request, or none when one is already on its way: a
 * certificate must not keep some of its trustpoints anchored and lose the others.
 */
async function cancelAll(
  services: CertificateServices,
  trx: Knex.Transaction,
  recordIds: readonly number[],
): Promise<boolean> {
  try {
    await trx.transaction(async (savepoint) => {
      for (const recordId of recordIds) {
        if (!(await services.engine.cancel(savepoint, recordId))) throw new AlreadySentError();
      }
    });
    return true;
  } catch (error) {
    if (error instanceof AlreadySentError) return false;
    throw error;
  }
}

/** A certificate ready to store: ids, time and signature chosen, its trustpoints decided. */
interface PreparedCertificate {
  certificate: NewCertificate;
  /** Evidence first, then the Signature of a qualified request; queued when stored. */
  trustpoints: Omit<NewTrustpoint, 'anchorRecordId'>[];
  inTransaction?: (trx: Knex.Transaction) => Promise<void>;
  /** Its entry in the audit log, written with it. */
  audit: NewAuditEntry;
  idempotency?: IdempotencyClaim | undefined;
}

/** A certificate as stored, with its trustpoints' anchoring records, to wait on. */
interface StoredCertificate {
  record: CertificateRecord;
  recordIds: number[];
}

const conflictErrors: Readonly<Record<CertificateConflict, ErrorCode>> = {
  hash: 'certificateAlreadyRegistered',
  externalId: 'externalIdAlreadyRegistered',
};

/**
 * Stores certificates of any number of requests, each with its own outcome: a certificate refused
 * for repeating its user's content or externalId (409, which wins over a lack of credit) or for
 * lack of credit (429) changes nothing, and the others are stored regardless.
 *
 * Usually in one statement on its own (`storeAtOnce`), which also commits each request's
 * `Idempotency-Key`; the locked way (`storeLocked`) when that cannot serve: a request with work of
 * its own in the transaction, or a user short of credit (the statement failed on a balance, or did
 * lately).
 */
async function storeCertificates(
  services: CertificateServices,
  prepared: readonly PreparedCertificate[],
): Promise<ItemOutcome<StoredCertificate>[]> {
  return (await storeAtOnce(services, prepared)) ?? storeLocked(services, prepared);
}

/** Users found short of credit lately: their groups go the locked way. */
const shortOfCredit = onePer((_services: CertificateServices) => new ShortOfCredit());

/**
 * The group in one statement that runs on its own and commits as it ends
 * (`insertCertificatesWithWrites` with `locksBalances`): it locks its users' balances in user
 * order, commits each request's `Idempotency-Key` (a request that lost its key to a retry is
 * refused, 409, without its certificate), inserts the certificates that do not repeat, queues
 * their records, stores their trustpoints, spends their credits and writes their audit entries.
 * One round trip for the group, where the locked way takes four (BEGIN, the balances, the
 * statement, COMMIT) and holds the balances across them. Undefined, with nothing stored, when it
 * cannot serve (see `storeCertificates`): the statement fails on the balance's check when a user
 * would spend more than they hold, and the locked way then finds out whose certificates are
 * refused.
 */
async function storeAtOnce(
  services: CertificateServices,
  prepared: readonly PreparedCertificate[],
): Promise<ItemOutcome<StoredCertificate>[] | undefined> {
  if (prepared.some((item) => item.inTransaction !== undefined)) return undefined;
  const userIds = prepared.map((item) => item.certificate.userId);
  if (shortOfCredit(services).any(userIds)) return undefined;
  // Each Idempotency-Key is committed by the statement, naming its certificate's certID.
  const items = prepared.map((item) => ({ ...withWrites(item), idempotency: item.idempotency }));
  let insertion;
  try {
    insertion = await retryTransientConflicts(() =>
      // Readiness was checked per request (`createCertificate`): one acknowledged pending
      // waits in the queue for a network that is not ready.
      services.engine.queueingBy(
        items.flatMap((item) => item.trustpoints.map(({ record }) => record)),
        { queueWhenNotReady: true },
        () => insertCertificatesWithWrites(services.knex, items, { locksBalances: true }),
      ),
    );
  } catch (error) {
    if (constraintViolation(error)?.constraint === 'credits_balance_check') return undefined;
    throw error;
  }
  const { inserted, conflicts, keysLost, withoutBalance } = insertion;
  return prepared.map((item): ItemOutcome<StoredCertificate> => {
    const row = inserted.get(item.certificate.id);
    if (keysLost.has(item.certificate.id)) {
      return { ok: false, error: keyTakenOver(item.idempotency?.key ?? '') };
    }
    // No balance at all reads as none left, as the locked way reads it.
    if (withoutBalance.has(item.certificate.id)) {
      return { ok: false, error: new DomainError('outOfCredits') };
    }
    if (row === undefined) {
      return {
        ok: false,
        error: new DomainError(conflictErrors[conflicts.get(item.certificate.id) ?? 'hash']),
      };
    }
    return { ok: true, value: storedCertificate(item, row) };
  });
}

/** A certificate as its group stored it, with its trustpoints on their queued records. */
function storedCertificate(
  { trustpoints }: PreparedCertificate,
  { record, recordIds }: { record: CertificateRecord; recordIds: number[] },
): StoredCertificate {
  return {
    record: {
      ...record,
      trustpoints: trustpoints.map((trustpoint, position) =>
        unanchoredTrustpoint({ ...trustpoint, anchorRecordId: recordIds[position] as number }),
      ),
    },
    recordIds,
  };
}

/**
 * Stores certificates the locked way, in one transaction, each with its own outcome:
 * a certificate refused for repeating its user's content or externalId (409, which wins over a
 * lack of credit) or for lack of credit (429) changes nothing, and the others are stored
 * regardless.
 *
 * The credit balances are locked first, in user order (as every creation and withdrawal takes
 * them), then the certificates go in with one statement that skips repeats and, for each
 * certificate it inserts, queues its trustpoints, stores them, spends its credit and writes its
 * audit entry (`insertCertificatesWithWrites`). A user's credits go to that user's certificates in
 * the order given; a repeat spends none, so the next certificate of the same user gets its place
 * in a further round.
 */
async function storeLocked(
  services: CertificateServices,
  prepared: readonly PreparedCertificate[],
): Promise<ItemOutcome<StoredCertificate>[]> {
  return retryTransientConflicts(() =>
    services.knex.transaction(async (trx) => {
      const outcomes: ItemOutcome<StoredCertificate>[] = [];
      const fail = (index: number, error: DomainError) => {
        outcomes[index] = { ok: false, error };
      };
      const credits = await lockCreditBalances(
        trx,
        prepared.map((item) => item.certificate.userId),
      );
      const spent = new Map<string, number>();
      const inserted = new Map<number, { record: CertificateRecord; recordIds: number[] }>();
      // Left without credit: 429, unless a repeat (409: buying credits would not help).
      const unpaid: number[] = [];
      let waiting = await withIdempotencyKeys(trx, prepared, fail);
      while (waiting.length > 0) {
        const round: number[] = [];
        const later: number[] = [];
        const places = new Map<string, number>();
        for (const index of waiting) {
          const { userId } = (prepared[index] as PreparedCertificate).certificate;
          const left = (credits.get(userId) ?? 0) - (spent.get(userId) ?? 0);
          const taken = places.get(userId) ?? 0;
          if (left <= 0) unpaid.push(index);
          else if (taken < left) {
            places.set(userId, taken + 1);
            round.push(index);
          } else later.push(index);
        }
        if (round.length === 0) break;
        const items = round.map((index) => withWrites(prepared[index] as PreparedCertificate));
        // Readiness was checked per request (`createCertificate`): one acknowledged pending
        // waits in the queue for a network that is not ready.
        services.engine.queueingWith(
          trx,
          items.flatMap((item) => item.trustpoints.map(({ record }) => record)),
          { queueWhenNotReady: true },
        );
        const { inserted: rows, conflicts } = await insertCertificatesWithWrites(trx, items);
        for (const index of round) {
          const { id, userId } = (prepared[index] as PreparedCertificate).certificate;
          const row = rows.get(id);
          if (row !== undefined) {
            inserted.set(index, row);
            spent.set(userId, (spent.get(userId) ?? 0) + 1);
          } else fail(index, new DomainError(conflictErrors[conflicts.get(id) ?? 'hash']));
        }
        waiting = later;
      }
      unpaid.push(...waiting);
      if (unpaid.length > 0) {
        for (const index of unpaid) {
          shortOfCredit(services).mark((prepared[index] as PreparedCertificate).certificate.userId);
        }
        const repeats = await findCertificateRepeats(
          trx,
          unpaid.map((index) => (prepared[index] as PreparedCertificate).certificate),
        );
        for (const index of unpaid) {
          const repeat = repeats.get((prepared[index] as PreparedCertificate).certificate.id);
          fail(
            index,
            new DomainError(repeat === undefined ? 'outOfCredits' : conflictErrors[repeat]),
          );
        }
      }
      if (inserted.size === 0) return outcomes;

      const storedIndexes = [...inserted.keys()];
      for (const index of storedIndexes) await prepared[index]?.inTransaction?.(trx);

      for (const index of storedIndexes) {
        outcomes[index] = {
          ok: true,
          value: storedCertificate(
            prepared[index] as PreparedCertificate,
            inserted.get(index) as { record: CertificateRecord; recordIds: number[] },
          ),
        };
      }
      return outcomes;
    }),
  );
}

/**
 * The requests of a group that may go on: each `Idempotency-Key` is committed first, naming the
 * certificate's certID, and stays locked until the transaction ends. A request that lost its key
 * to a retry (its lease ran out) is refused (409) without its certificate; the others are not
 * disturbed. A request refused later in the transaction (409, 429) leaves its key naming a
 * certificate that does not exist: its refusal is stored as its answer once the group commits,
 * and should the process die first, a retry finds no certificate and runs the request again.
 */
async function withIdempotencyKeys(
  trx: Knex.Transaction,
  prepared: readonly PreparedCertificate[],
  fail: (index: number, error: DomainError) => void,
): Promise<number[]> {
  // One statement for the whole group's keys.
  const refused = await commitIdempotentChanges(
    trx,
    prepared.map((item) => ({ claim: item.idempotency, resource: item.certificate.certId })),
  );
  const going: number[] = [];
  refused.forEach((error, index) => {
    if (error === undefined) going.push(index);
    else fail(index, error);
  });
  return going;
}

/** Runs the creations of concurrent requests together: one transaction for all that are waiting. */
const creationGroup = onePer(
  (services: CertificateServices) =>
    new Batcher((items: PreparedCertificate[]) => storeCertificates(services, items)),
);

/** A request whose own work joins the transaction is stored on its own, not with others. */
async function store(
  services: CertificateServices,
  prepared: PreparedCertificate,
): Promise<StoredCertificate> {
  if (prepared.inTransaction === undefined) return creationGroup(services).submit(prepared);
  const [outcome] = await storeCertificates(services, [prepared]);
  if (outcome === undefined) throw new Error('storing a certificate gave no outcome');
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * Creates a certificate and its Evidence trustpoint, and answers once the trustpoint is mined,
 * or at once with it pending when the acknowledgement says so (`Prefer: respond-async`).
 *
 * One database transaction spends the credit, stores the certificate and trustpoint, and queues
 * the trustpoint for anchoring: a refused request (no credit, repeated content or externalId)
 * changes nothing. If the chain does not mine it within the wait, a synchronous request withdraws
 * a trustpoint still waiting in the queue together with its certificate, gives the credit back
 * and fails with 503; one already sent stays and will be anchored, and the certificate is
 * returned pending (202), as it is to an asynchronous request.
 *
 * `qualified` (qualified users only, 403 otherwise before anything changes) also signs the
 * certificate: its Signature trustpoint (`issuedOn + 1`) is written in the same transaction and
 * anchored with the Evidence; the answer waits for both, and a timeout withdraws both or neither.
 */
export async function createCertificate(
  services: CertificateServices,
  user: User,
  draft: CertificateDraft,
  options: CreateCertificateOptions = { qualified: false },
): Promise<CertificateRecord> {
  const { knex, engine, networks } = services;
  if (options.qualified && !user.qualified) throw new DomainError('userNotQualified');
  networks.requireForUser(draft.networkId, user.planNetworkIds, 'query.networkId');
  const acknowledgement = options.acknowledgement ?? SYNCHRONOUS_ACKNOWLEDGEMENT;
  // A request that would wait for a network that cannot anchor now fails fast (503) and stores
  // nothing; one acknowledged pending is stored and waits in the queue.
  if (acknowledgement.onTimeout === 'withdraw') engine.requireReady(draft.networkId);
  const id = newUuidV7();
  const certId = newCertId(services.namespace);
  const issuedOn = services.now();
  // Against the very moment the certificate is issued, before anything is stored or spent.
  requireExpiresAfter(draft.expires, issuedOn);
  const signedAt = issuedOn + 1;
  // Every new certificate is made under version 2: its Evidence anchors the root over every shown
  // field; the unsalted digest stays stored for repeats and lookups.
  // The domain the account proved (a DNS TXT record naming this origin and the account), named
  // by the certificate for verifiers to check: only a service with a public origin can be named.
  const issuerOrigin = services.issuerOrigin?.();
  // Read with the user (authentication): no query of its own.
  const issuerDomain = issuerOrigin === undefined ? undefined : user.issuerDomain;
  const hashV2 = certificateHashV2(
    certId,
    { ...draft, userId: user.id, issuedOn },
    issuerOrigin,
    issuerDomain,
    { boundIssuedSize: true },
  );
  const signature = options.qualified
    ? await qualifiedSignature(
        services.signer,
        { ...draft, hash: hashV2.hash, certId, userId: user.id, issuedOn },
        signedAt,
      )
    : undefined;

  const evidence = {
    type: 0 as const,
    hash: hashV2.hash,
    timestamp: issuedOn,
    networkId: draft.networkId,
  };
  // Room on the network's queue, held until the store ends: past its limit, 503 before anything
  // is stored (nor any credit spent).
  const admission = await engine.admit(draft.networkId, signature === undefined ? 1 : 2);
  const storing = () =>
    store(services, {
      certificate: {
        id,
        certId,
        userId: user.id,
        type: draft.type,
        name: draft.name,
        description: draft.description,
        content: draft.content,
        hash: hashV2.hash,
        contentDigest: draft.hash,
        hashVersion: 2,
        issuerOrigin: hashV2.issuerOrigin,
        issuerDomain: hashV2.issuerDomain,
        selectiveDisclosure: hashV2.selectiveDisclosure,
        fileHash: draft.fileHash,
        issuedOn,
        expires: draft.expires,
        public: draft.public,
        pinEncrypted:
          draft.certificatePin === null ? null : services.pins.encrypt(draft.certificatePin),
        externalId: draft.externalId,
        networkId: draft.networkId,
      },
      trustpoints:
        signature === undefined
          ? [evidence]
          : [
              evidence,
              {
                type: 2,
                hash: signature.trustPointHash,
                timestamp: signedAt,
                networkId: draft.networkId,
                signature: signature.jws,
              },
            ],
      ...(options.inTransaction === undefined ? {} : { inTransaction: options.inTransaction }),
      idempotency: options.idempotency,
      audit: certificateAudit(user, options.requestId, 'certificate.create', certId, {
        type: draft.type,
        networkId: draft.networkId,
        hash: hashV2.hash,
        hashVersion: 2,
        contentDigest: draft.hash,
        qualified: options.qualified,
      }),
    });
  const { record: inserted, recordIds } = await admission.during(storing);

  const wait = await awaitAcknowledgement(engine, {
    acknowledgement,
    recordIds,
    withdraw: () =>
      knex.transaction(async (trx) => {
        // A request that lost its key to a retry withdraws nothing: the retry may have answered
        // from this certificate already (202). The key stays locked until this commits.
        const claim = options.idempotency;
        if (claim !== undefined && !(await holdsIdempotencyKey(trx, claim))) return false;
        const withdrawn = await cancelAll(services, trx, recordIds);
        if (withdrawn) {
          await withdrawCertificate(trx, id, user.id);
          await recordAudit(trx, [
            certificateAudit(user, options.requestId, 'certificate.withdraw', certId, {
              reason: 'not anchored within the synchronous wait',
            }),
          ]);
        }
        return withdrawn;
      }),
  });
  // Acknowledged pending: its trustpoints stay queued and will be anchored.
  if (!wait.anchored) return inserted;
  const receipts: AnchorReceipt[] = wait.receipts;
  services.logger.debug(
    { reqId: options.requestId, certId, transactionHash: receipts[0]?.transactionHash },
    'certificate anchored',
  );
  // No read back: since the insert, only where its trustpoints landed has changed, and the
  // receipts carry exactly what the settlement wrote into their rows.
  const byRecord = new Map(receipts.map((receipt) => [receipt.recordId, receipt]));
  return {
    ...inserted,
    trustpoints: inserted.trustpoints.map((trustpoint) => {
      const receipt = byRecord.get(trustpoint.anchorRecordId ?? -1);
      if (!receipt) return trustpoint;
      const { smartContract, transactionHash, anchoredAt } = receipt;
      return { ...trustpoint, smartContract, transactionHash, anchoredAt, status: 'anchored' };
    }),
  };
}

/**
 * A prepared certificate with what its group's statement writes once it is in: each trustpoint
 * with the record that anchors it (the credit pays for the Evidence; the Signature of a qualified
 * creation is free) and its audit entry.
 */
function withWrites({
  certificate,
  trustpoints,
  audit,
}: PreparedCertificate): CertificateWithWrites {
  return {
    certificate,
    trustpoints: trustpoints.map((trustpoint) => ({
      trustpoint,
      record: trustpointAnchorRequest(
        certificate.certId,
        trustpoint,
        trustpoint.type === 0 ? certificate.userId : undefined,
      ),
    })),
    audit,
  };
}
