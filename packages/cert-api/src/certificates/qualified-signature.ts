import type { AnchorEngine } from '@trustpoint/chain';
import type { CertificateRecord, TrustpointRecord } from '@trustpoint/db';
import {
  formatUserDid,
  qualifiedSignaturePayload,
  signatureTrustPointHash,
  utf8Bytes,
} from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { CertificateSigner } from './certificate-signer.js';
import { addQueuedTrustpoint } from './next-trustpoint.js';

/** What a qualified signature binds: the certificate's identity, its hash and when it was signed. */
export type SignedCertificate = Pick<
  CertificateRecord,
  'certId' | 'hash' | 'fileHash' | 'userId' | 'issuedOn' | 'type'
>;

export interface QualifiedSignature {
  /** Compact JWS whose payload is the RFC 8785 canonical JSON of the signed fields. */
  jws: string;
  /** `doubleHash(utf8(jws))`: what the Signature trustpoint stores on chain. */
  trustPointHash: string;
}

/**
 * Signs the certificate with the service key. The payload is canonical JSON so that anyone can
 * rebuild it from the certificate view and compare; `signedAt` is the Signature trustpoint's
 * timestamp, which ties the JWS to its on-chain key (certID, timestamp).
 */
export async function qualifiedSignature(
  signer: CertificateSigner,
  certificate: SignedCertificate,
  signedAt: number,
): Promise<QualifiedSignature> {
  const jws = await signer.sign(signaturePayload(certificate, signedAt));
  return { jws, trustPointHash: signatureTrustPointHash(utf8Bytes(jws)) };
}

/**
 * The text a qualified signature signs: RFC 8785 canonical JSON of the signed fields, by the rule
 * an outside verifier applies to the certificate view (`qualifiedSignaturePayload`).
 */
function signaturePayload(certificate: SignedCertificate, signedAt: number): string {
  return qualifiedSignaturePayload(
    {
      certID: certificate.certId,
      hash: certificate.hash,
      fileHash: certificate.fileHash ?? undefined,
      issuer: formatUserDid(certificate.userId),
      issuedOn: certificate.issuedOn,
      type: certificate.type,
    },
    signedAt,
  );
}

/**
 * Whether a stored JWS is this certificate's signature at `timestamp`: made with the service key,
 * over exactly the payload the certificate gives, and double-hashing to the trustpoint hash.
 */
export async function isQualifiedSignatureOf(
  signer: CertificateSigner,
  certificate: SignedCertificate,
  trustpoint: Pick<TrustpointRecord, 'hash' | 'timestamp' | 'signature'>,
): Promise<boolean> {
  const { signature } = trustpoint;
  if (signature === undefined) return false;
  if (signatureTrustPointHash(utf8Bytes(signature)) !== trustpoint.hash) return false;
  try {
    return (await signer.verify(signature)) === signaturePayload(certificate, trustpoint.timestamp);
  } catch {
    return false;
  }
}

/**
 * Stores the signature as the certificate's Signature trustpoint at `timestamp` and queues it for
 * anchoring, in the caller's transaction; returns its anchoring record's id and the trustpoint as
 * stored.
 */
export async function addSignatureTrustpoint(
  trx: Knex.Transaction,
  engine: AnchorEngine,
  target: { certificateId: string; certId: string; networkId: string; timestamp: number },
  signature: QualifiedSignature,
  paidBy?: string,
): Promise<{ recordId: number; trustpoint: TrustpointRecord }> {
  return addQueuedTrustpoint(
    trx,
    engine,
    { id: target.certificateId, certId: target.certId },
    {
      type: 2,
      hash: signature.trustPointHash,
      timestamp: target.timestamp,
      networkId: target.networkId,
      signature: signature.jws,
    },
    paidBy,
  );
}
