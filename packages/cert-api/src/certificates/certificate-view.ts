import type { CertificateRecord } from '@trustpoint/db';
import {
  formatUserDid,
  overallAnchoringStatus,
  trustPointTypeName,
  type Certificate,
  type CertificateMetadataItem,
  type JsonObject,
} from '@trustpoint/domain';

/**
 * A Signature item also carries the signature itself (compact JWS): the chain holds only its
 * double hash, so a verifier needs the JWS to check it against the service's published key.
 */
export type CertificateViewMetadataItem = CertificateMetadataItem & { signature?: string };

export type CertificateView = Certificate & { metadata: CertificateViewMetadataItem[] };

/**
 * A stored certificate as the API shows it (CertModel, spec 2.2), with every trustpoint and where
 * it stands: an anchored one is exactly what `getTrustPoint(certID, timestamp)` verifies on chain;
 * a pending one (acknowledged before its batch was mined) has no transaction yet; a failed one
 * says why. The certificate's own status is the least settled of its trustpoints.
 *
 * A version 2 certificate carries `hashVersion`, `issuerOrigin` and `selectiveDisclosure` (every
 * disclosure, salts included): only readers allowed to see the whole certificate get a view, and
 * they see its whole content anyway, so the salts reveal nothing more to them and let them verify
 * it and hand on a copy withholding fields. An Evidence of an earlier hash (before the issuer
 * re-anchored it under version 2) is left out: it stays on chain, and copies made before still
 * verify against it.
 */
export function certificateView(record: CertificateRecord): CertificateView {
  return {
    certID: record.certId,
    data: {
      name: record.name,
      description: record.description,
      type: record.type,
      // Stored only after validation as a JSON object (and read back from jsonb), so it is one.
      content: record.content as JsonObject,
      issuer: formatUserDid(record.userId),
      issuedOn: record.issuedOn,
      hash: record.hash,
      ...(record.expires === null ? {} : { expires: record.expires }),
      ...(record.fileHash === null ? {} : { fileHash: record.fileHash }),
      ...(record.hashVersion === 2 && record.selectiveDisclosure !== null
        ? {
            hashVersion: 2 as const,
            ...(record.issuerOrigin === null ? {} : { issuerOrigin: record.issuerOrigin }),
            ...(record.issuerDomain === null ? {} : { issuerDomain: record.issuerDomain }),
            selectiveDisclosure: {
              content: record.selectiveDisclosure.content as JsonObject,
              disclosures: record.selectiveDisclosure.disclosures,
            },
          }
        : {}),
    },
    metadata: currentTrustpoints(record).map((trustpoint) => ({
      type: trustPointTypeName(trustpoint.type),
      networkId: Number(trustpoint.networkId),
      status: trustpoint.status,
      ...(trustpoint.smartContract === null ? {} : { smartContract: trustpoint.smartContract }),
      ...(trustpoint.transactionHash === null
        ? {}
        : { transactionHash: trustpoint.transactionHash }),
      trustPointHash: trustpoint.hash,
      timestamp: trustpoint.timestamp,
      ...(trustpoint.signature === undefined ? {} : { signature: trustpoint.signature }),
      ...(trustpoint.failure === undefined ? {} : { failure: trustpoint.failure }),
    })),
    access: {
      public: record.public,
      ...(record.pinEncrypted === null ? {} : { certificatePin: record.pinEncrypted }),
      ...(record.externalId === null ? {} : { externalId: record.externalId }),
    },
    status: overallAnchoringStatus(
      currentTrustpoints(record).map((trustpoint) => trustpoint.status),
    ),
  };
}

/** Its trustpoints but an Evidence of a hash it no longer has (re-anchored under version 2). */
export function currentTrustpoints(record: CertificateRecord): CertificateRecord['trustpoints'] {
  return record.trustpoints.filter(
    (trustpoint) => trustpoint.type !== 0 || trustpoint.hash === record.hash,
  );
}
