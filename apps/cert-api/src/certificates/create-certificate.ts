import type { AnchorReceipt } from '@trustpoint/chain';
import {
  constraintViolation,
  insertCertificate,
  spendCredit,
  withdrawCertificate,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import {
  DomainError,
  newCertId,
  newUuidV7,
  trustPointKey,
  type CertificateType,
} from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { CertificateServices } from './certificate-services.js';
import { addSignatureTrustpoint, qualifiedSignature } from './qualified-signature.js';

/** A certificate to create, once its kind-specific part has been hashed. */
export interface CertificateDraft {
  type: CertificateType;
  networkId: string;
  name: string;
  description: string;
  /** What the certificate shows as `data.content`; for asset certificates, the hashed object. */
  content: Record<string, unknown>;
  hash: string;
  fileHash: string | null;
  expires: number | null;
  public: boolean;
  certificatePin: string | null;
  externalId: string | null;
}

export interface CreateCertificateOptions {
  /** Also sign it with the service key: a Signature trustpoint at `issuedOn + 1`. */
  qualified: boolean;
  /**
   * Extra work inside the creating transaction, once the certificate is written (publishing a
   * file records it here): it commits or rolls back together with the certificate.
   */
  inTransaction?: (trx: Knex.Transaction) => Promise<void>;
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

function conflictOf(error: unknown): DomainError | undefined {
  const violation = constraintViolation(error);
  if (violation?.kind !== 'unique') return undefined;
  if (violation.constraint === 'certificates_user_hash_unique') {
    return new DomainError('certificateAlreadyRegistered', { cause: error });
  }
  if (violation.constraint === 'certificates_user_external_id_unique') {
    return new DomainError('externalIdAlreadyRegistered', { cause: error });
  }
  return undefined;
}

/**
 * Creates a certificate and its Evidence trustpoint, and answers once the trustpoint is mined.
 *
 * One database transaction spends the credit, stores the certificate and trustpoint, and queues
 * the trustpoint for anchoring: a refused request (no credit, repeated content or externalId)
 * changes nothing. If the chain does not mine it within the anchor timeout, a trustpoint still
 * waiting in the queue is withdrawn together with its certificate and the credit is given back,
 * and the request fails with 503; one already sent stays and will be anchored.
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
  networks.requireForUser(draft.networkId, user.planNetworkIds);
  const id = newUuidV7();
  const certId = newCertId(services.namespace);
  const issuedOn = services.now();
  const signedAt = issuedOn + 1;
  const signature = options.qualified
    ? await qualifiedSignature(
        services.signer,
        { ...draft, certId, userId: user.id, issuedOn },
        signedAt,
      )
    : undefined;

  let inserted: CertificateRecord;
  let recordIds: number[];
  try {
    ({ inserted, recordIds } = await knex.transaction(async (trx) => {
      if (!(await spendCredit(trx, user.id))) throw new DomainError('outOfCredits');
      const queued = await engine.enqueue(trx, {
        networkId: draft.networkId,
        kind: 'trustpoint',
        recordKey: trustPointKey(certId, issuedOn),
        hash: draft.hash,
        trustPointType: 0,
      });
      const certificate = await insertCertificate(
        trx,
        {
          id,
          certId,
          userId: user.id,
          type: draft.type,
          name: draft.name,
          description: draft.description,
          content: draft.content,
          hash: draft.hash,
          fileHash: draft.fileHash,
          issuedOn,
          expires: draft.expires,
          public: draft.public,
          pinEncrypted:
            draft.certificatePin === null ? null : services.pins.encrypt(draft.certificatePin),
          externalId: draft.externalId,
          networkId: draft.networkId,
        },
        {
          type: 0,
          hash: draft.hash,
          timestamp: issuedOn,
          networkId: draft.networkId,
          anchorRecordId: queued,
        },
      );
      await options.inTransaction?.(trx);
      if (signature === undefined) return { inserted: certificate, recordIds: [queued] };
      const target = { certificateId: id, certId, networkId: draft.networkId, timestamp: signedAt };
      const signed = await addSignatureTrustpoint(trx, engine, target, signature);
      return {
        inserted: { ...certificate, trustpoints: [...certificate.trustpoints, signed.trustpoint] },
        recordIds: [queued, signed.recordId],
      };
    }));
  } catch (error) {
    throw conflictOf(error) ?? error;
  }

  let receipts: AnchorReceipt[];
  try {
    receipts = await Promise.all(recordIds.map((recordId) => engine.waitForAnchor(recordId)));
  } catch (error) {
    await knex.transaction(async (trx) => {
      if (await cancelAll(services, trx, recordIds)) await withdrawCertificate(trx, id, user.id);
    });
    throw error;
  }
  services.logger.debug(
    { certId, transactionHash: receipts[0]?.transactionHash },
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
      return { ...trustpoint, smartContract, transactionHash, anchoredAt };
    }),
  };
}
