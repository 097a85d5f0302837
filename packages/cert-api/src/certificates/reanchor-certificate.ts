import {
  findCertificate,
  reanchorCertificate as storeHashV2,
  recordAudit,
  spendCredit,
  type CertificateRecord,
  type IdempotencyClaim,
  type User,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { commitIdempotentChange } from '@trustpoint/http';
import { certificateAudit } from './certificate-audit.js';
import { certificateHashV2 } from './certificate-hash-v2.js';
import type { CertificateServices } from './certificate-services.js';
import { getOwnCertificate } from './get-certificate.js';
import {
  addQueuedTrustpoint,
  lockedCertificate,
  nextTrustpointTimestamp,
} from './next-trustpoint.js';

export interface ReanchoredCertificate {
  certificate: CertificateRecord;
  /** False when it was under version 2 already and came back as it was. */
  created: boolean;
}

/** A request that cannot be met: the catalogue's 400, naming why. */
function cannotReanchor(certId: string, why: string): DomainError {
  return new DomainError('validation', {
    detail: `certificate ${certId} cannot be re-anchored: ${why}`,
    errors: [{ field: 'path.id', error: why }],
  });
}

/** Why a version 1 certificate cannot move to version 2, if it cannot. */
function refusalOf(record: CertificateRecord): string | undefined {
  if (record.revokedAt !== null) return 'A revoked certificate cannot be re-anchored';
  if (record.trustpoints.some((trustpoint) => trustpoint.type === 2)) {
    return 'A signed certificate cannot be re-anchored: its qualified signature covers its version 1 hash';
  }
  if (record.type === 'url' && record.fileHash === null) {
    return 'This URL certificate records no sha256 of the bytes it certified, which version 2 covers';
  }
  return undefined;
}

/**
 * The issuer re-anchors one of their version 1 certificates under hash version 2 (issue #24): a
 * new Evidence trustpoint on `networkId` (the certificate's own network by default), at a
 * timestamp after every earlier trustpoint, anchoring the root over every shown field (certID,
 * name, description, issuer, issuedOn as issued, expires, the content with fresh salts), for one
 * credit; the answer comes once it is mined. From then on the certificate shows `hashVersion: 2`,
 * its new `data.hash` and that Evidence; the earlier Evidence stays on chain, so copies saved
 * before still verify under version 1. Its unsalted digest is unchanged: repeats and `/hash/`
 * lookups find it as before.
 *
 * A certificate under version 2 already comes back as it is (no credit). A revoked or signed one
 * is refused (400), as is a URL certificate that never recorded its bytes' sha256. If the chain
 * does not mine the Evidence in time the request fails with 503, like a signature: the change
 * stands, and asking again returns the certificate.
 */
export async function reanchorCertificate(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
  networkId: string | undefined,
  requestId: string | null = null,
  idempotency?: IdempotencyClaim,
): Promise<ReanchoredCertificate> {
  const { knex, engine } = services;
  const found = await getOwnCertificate(services, owner, lookupName, value);
  if (found.hashVersion === 2) return untilAnchored(services, found);
  const refusal = refusalOf(found);
  if (refusal !== undefined) throw cannotReanchor(found.certId, refusal);
  const network = networkId ?? found.networkId;
  services.networks.requireForUser(network, owner.planNetworkIds, 'query.networkId');
  // Computed before the transaction: content the rule refuses is a 400 that spends nothing.
  const hashV2 = certificateHashV2(found.certId, found, services.issuerOrigin?.());

  // Past the network's queue limit, 503 before anything is stored (nor any credit spent).
  const admission = await engine.admit(network, 1);
  const storing = () =>
    knex.transaction(async (trx) => {
      const record = await lockedCertificate(trx, found);
      if (!record) throw new DomainError('notFound');
      if (record.hashVersion === 2) return { already: record };
      const lateRefusal = refusalOf(record);
      if (lateRefusal !== undefined) throw cannotReanchor(record.certId, lateRefusal);
      if (!(await spendCredit(trx, owner.id))) throw new DomainError('outOfCredits');
      await commitIdempotentChange(trx, idempotency, record.certId);
      const timestamp = nextTrustpointTimestamp(record, services.now());
      if (!(await storeHashV2(trx, record.id, hashV2))) return { already: record };
      const { recordId } = await addQueuedTrustpoint(
        trx,
        engine,
        record,
        { type: 0, hash: hashV2.hash, timestamp, networkId: network },
        owner.id,
      );
      await recordAudit(trx, [
        certificateAudit(owner, requestId, 'certificate.reanchor', record.certId, {
          networkId: network,
          timestamp,
          hashVersion: 2,
          hash: hashV2.hash,
          previousHash: record.hash,
        }),
      ]);
      return { queued: recordId };
    });
  const outcome = await admission.during(storing);

  if (outcome.already !== undefined) {
    return untilAnchored(services, await reread(services, found.certId));
  }
  await engine.waitForAnchor(outcome.queued);
  services.logger.debug(
    { reqId: requestId, certId: found.certId },
    'certificate re-anchored under hash version 2',
  );
  return { certificate: await reread(services, found.certId), created: true };
}

async function reread(services: CertificateServices, certId: string): Promise<CertificateRecord> {
  const record = await findCertificate(services.knex, 'certId', certId);
  if (!record) throw new Error(`certificate ${certId} vanished while being re-anchored`);
  return record;
}

/** A version 2 certificate, once its Evidence is mined (a retry after a 503 waits for it). */
async function untilAnchored(
  services: CertificateServices,
  record: CertificateRecord,
): Promise<ReanchoredCertificate> {
  const evidence = record.trustpoints.find(
    (trustpoint) => trustpoint.type === 0 && trustpoint.hash === record.hash,
  );
  if (evidence?.transactionHash === null && evidence.anchorRecordId !== null) {
    await services.engine.waitForAnchor(evidence.anchorRecordId);
    return { certificate: await reread(services, record.certId), created: false };
  }
  return { certificate: record, created: false };
}
