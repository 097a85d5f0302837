import {
  evidenceNetworksOf,
  findCertificate,
  markCertificateRevoked,
  recordAudit,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import { revocationTrustPointHash } from '@trustpoint/domain';
import { certificateAudit } from './certificate-audit.js';
import type { CertificateServices } from './certificate-services.js';
import { getOwnCertificate } from './get-certificate.js';
import {
  addQueuedTrustpoint,
  lockedCertificate,
  nextTrustpointTimestamp,
} from './next-trustpoint.js';

/**
 * Revokes one of the owner's certificates: marks it revoked, adds a Revocation trustpoint
 * (`doubleHash("Certificate <certID> has been revoked")`) on `networkId` and queues its status for
 * the status registry of every network holding its Evidence trustpoints, in one transaction; then
 * waits for them to be mined. From then on a verifier holding the certificate as issued finds the
 * revocation from its certID alone. Revoking is idempotent: a revoked certificate comes back as it is. If the chain does
 * not mine the trustpoint in time the request fails with 503, but the revocation stands and its
 * trustpoint is anchored once the chain is back; asking again returns the certificate.
 */
export async function revokeCertificate(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
  networkId: string,
  requestId: string | null = null,
): Promise<CertificateRecord> {
  const { knex, engine } = services;
  const record = await getOwnCertificate(services, owner, lookupName, value);
  if (record.revokedAt !== null) return untilRevocationAnchored(services, record);
  services.networks.requireForUser(networkId, owner.planNetworkIds, 'query.networkId');
  const hash = revocationTrustPointHash(record.certId);

  const recordIds = await knex.transaction(async (trx) => {
    // Under the certificate's lock, so that a concurrent signature or revocation cannot take the
    // same timestamp.
    const current = await lockedCertificate(trx, record);
    if (!current || current.revokedAt !== null) return undefined;
    const timestamp = nextTrustpointTimestamp(current, services.now());
    if (!(await markCertificateRevoked(trx, record.id, timestamp))) return undefined;
    const queued = await addQueuedTrustpoint(trx, engine, record, {
      type: 1,
      hash,
      timestamp,
      networkId,
    });
    const statusIds = await engine.enqueueRevocationStatus(
      trx,
      { certId: record.certId, timestamp, hash },
      await evidenceNetworksOf(trx, record.id),
    );
    await recordAudit(trx, [
      certificateAudit(owner, requestId, 'certificate.revoke', record.certId, {
        networkId,
        timestamp,
      }),
    ]);
    return [queued.recordId, ...statusIds];
  });
  if (recordIds !== undefined) {
    await Promise.all(recordIds.map((recordId) => engine.waitForAnchor(recordId)));
  }
  const revoked = await findCertificate(knex, 'certId', record.certId);
  if (!revoked) throw new Error(`certificate ${record.certId} vanished while being revoked`);
  return recordIds === undefined ? untilRevocationAnchored(services, revoked) : revoked;
}

/**
 * An already revoked certificate, once its Revocation trustpoint is mined: asking again after a
 * 503 answers like the first request would have.
 */
async function untilRevocationAnchored(
  services: CertificateServices,
  record: CertificateRecord,
): Promise<CertificateRecord> {
  const revocation = record.trustpoints.find((trustpoint) => trustpoint.type === 1);
  if (!revocation || revocation.transactionHash !== null || revocation.anchorRecordId === null) {
    return record;
  }
  await services.engine.waitForAnchor(revocation.anchorRecordId);
  const anchored = await findCertificate(services.knex, 'certId', record.certId);
  if (!anchored) throw new Error(`certificate ${record.certId} vanished while being revoked`);
  return anchored;
}
