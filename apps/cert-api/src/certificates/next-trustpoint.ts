import { findCertificate, lockCertificate, type CertificateRecord } from '@trustpoint/db';
import type { Knex } from 'knex';

/**
 * The certificate read again under its row lock, so that the trustpoints added to it (and its
 * revocation) are decided one request at a time; undefined when it is gone.
 */
export async function lockedCertificate(
  trx: Knex.Transaction,
  certificate: Pick<CertificateRecord, 'id' | 'certId'>,
): Promise<CertificateRecord | undefined> {
  await lockCertificate(trx, certificate.id);
  return findCertificate(trx, 'certId', certificate.certId);
}

/**
 * When a new trustpoint of the certificate is recorded: the on-chain key is (certID, timestamp),
 * so strictly after every earlier trustpoint, and not before `now`.
 */
export function nextTrustpointTimestamp(certificate: CertificateRecord, now: number): number {
  const latest = Math.max(...certificate.trustpoints.map((trustpoint) => trustpoint.timestamp));
  return Math.max(now, latest + 1);
}
