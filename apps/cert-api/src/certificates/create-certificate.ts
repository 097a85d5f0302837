import type { AnchorReceipt } from '@trustpoint/chain';
import {
  constraintViolation,
  insertCertificate,
  isNetworkInPlan,
  spendCredit,
  withdrawCertificate,
  findCertificate,
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
import type { CertificateServices } from './certificate-services.js';

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
 */
export async function createCertificate(
  services: CertificateServices,
  user: User,
  draft: CertificateDraft,
): Promise<CertificateRecord> {
  const { knex, engine, networks } = services;
  await networks.requireForUser(draft.networkId, (networkId) =>
    isNetworkInPlan(knex, user.id, networkId),
  );
  const id = newUuidV7();
  const certId = newCertId(services.namespace);
  const issuedOn = services.now();

  let recordId: number;
  try {
    recordId = await knex.transaction(async (trx) => {
      if (!(await spendCredit(trx, user.id))) throw new DomainError('outOfCredits');
      const queued = await engine.enqueue(trx, {
        networkId: draft.networkId,
        kind: 'trustpoint',
        recordKey: trustPointKey(certId, issuedOn),
        hash: draft.hash,
        trustPointType: 0,
      });
      await insertCertificate(
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
      return queued;
    });
  } catch (error) {
    throw conflictOf(error) ?? error;
  }

  let receipt: AnchorReceipt;
  try {
    receipt = await engine.waitForAnchor(recordId);
  } catch (error) {
    await knex.transaction(async (trx) => {
      if (await engine.cancel(trx, recordId)) await withdrawCertificate(trx, id, user.id);
    });
    throw error;
  }
  services.logger.debug(
    { certId, transactionHash: receipt.transactionHash },
    'certificate anchored',
  );
  const created = await findCertificate(knex, 'certId', certId);
  if (!created) throw new Error(`certificate ${certId} vanished after anchoring`);
  return created;
}
