import type { CertificateRecord } from '@trustpoint/db';
import {
  formatUserDid,
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
 * A stored certificate as the API shows it (CertModel, spec 2.2). Only anchored trustpoints appear
 * in `metadata`: each item is exactly what `getTrustPoint(certID, timestamp)` verifies on chain.
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
    },
    metadata: record.trustpoints.flatMap((trustpoint) =>
      trustpoint.smartContract !== null && trustpoint.transactionHash !== null
        ? [
            {
              type: trustPointTypeName(trustpoint.type),
              networkId: Number(trustpoint.networkId),
              smartContract: trustpoint.smartContract,
              transactionHash: trustpoint.transactionHash,
              trustPointHash: trustpoint.hash,
              timestamp: trustpoint.timestamp,
              ...(trustpoint.signature === undefined ? {} : { signature: trustpoint.signature }),
            },
          ]
        : [],
    ),
    access: {
      public: record.public,
      ...(record.pinEncrypted === null ? {} : { certificatePin: record.pinEncrypted }),
      ...(record.externalId === null ? {} : { externalId: record.externalId }),
    },
  };
}
