import type { AnchorEngine, AnchorRequest } from '@trustpoint/chain';
import {
  addTrustpoint,
  findCertificate,
  lockCertificate,
  type CertificateRecord,
  type NewTrustpoint,
  type TrustpointRecord,
} from '@trustpoint/db';
import { trustPointKey } from '@trustpoint/domain';
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

/**
 * What is queued to anchor a certificate's trustpoint: keyed on chain by (certID, timestamp).
 * `paidBy` is the user whose credit it cost, given back if the chain refuses it for good.
 */
export function trustpointAnchorRequest(
  certId: string,
  trustpoint: Pick<NewTrustpoint, 'type' | 'hash' | 'timestamp' | 'networkId'>,
  paidBy?: string,
): AnchorRequest {
  return {
    networkId: trustpoint.networkId,
    kind: 'trustpoint',
    recordKey: trustPointKey(certId, trustpoint.timestamp),
    hash: trustpoint.hash,
    timestamp: trustpoint.timestamp,
    trustPointType: trustpoint.type,
    ...(paidBy === undefined ? {} : { paidBy }),
  };
}

/**
 * Adds a later trustpoint (Revocation, Signature) to the certificate and queues it for anchoring,
 * in the caller's transaction; its anchoring record's id and the trustpoint as stored.
 */
export async function addQueuedTrustpoint(
  trx: Knex.Transaction,
  engine: AnchorEngine,
  certificate: Pick<CertificateRecord, 'id' | 'certId'>,
  trustpoint: Omit<NewTrustpoint, 'anchorRecordId'>,
  paidBy?: string,
): Promise<{ recordId: number; trustpoint: TrustpointRecord }> {
  const recordId = await engine.enqueue(
    trx,
    trustpointAnchorRequest(certificate.certId, trustpoint, paidBy),
  );
  const stored = await addTrustpoint(trx, certificate.id, {
    ...trustpoint,
    anchorRecordId: recordId,
  });
  return { recordId, trustpoint: stored };
}
