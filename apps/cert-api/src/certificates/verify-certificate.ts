import { RecordReader, type TrustPointRead } from '@trustpoint/chain';
import type { CertificateRecord, TrustpointRecord } from '@trustpoint/db';
import {
  trustPointExplorerVerification,
  trustPointTypeName,
  type ExplorerVerification,
  type TrustPointTypeName,
} from '@trustpoint/domain';
import type { CertificateServices } from './certificate-services.js';
import { isQualifiedSignatureOf } from './qualified-signature.js';

/** How one trustpoint compares with what the chain holds under (certID, timestamp). */
export type TrustpointCheck = 'match' | 'mismatch' | 'notFound' | 'unreachable' | 'pending';

export interface TrustpointVerification {
  type: TrustPointTypeName;
  networkId: number;
  smartContract: string | null;
  transactionHash: string | null;
  timestamp: number;
  trustPointHash: string;
  /** What `getTrustPoint(certID, timestamp)` returned, when the node answered and found it. */
  onChain: { hash: string; type: TrustPointTypeName } | null;
  hashMatches: boolean;
  typeMatches: boolean;
  /**
   * Signature trustpoints: the stored JWS verifies with the service key, signs this certificate
   * at this timestamp and double-hashes to `trustPointHash`. False makes the status `mismatch`.
   */
  signatureValid?: boolean;
  status: TrustpointCheck;
  /**
   * Verification method 2 by hand: links to the transaction and to the contract's read page on the
   * network's block explorer, and what to type there. Null without an explorer or before anchoring.
   */
  explorer: ExplorerVerification | null;
}

export interface CertificateVerification {
  certID: string;
  /** Every trustpoint is on chain with the recorded hash and type. */
  verified: boolean;
  revoked: boolean;
  revokedAt?: number;
  trustpoints: TrustpointVerification[];
}

const reader = new RecordReader();

function checkOf(
  certId: string,
  trustpoint: TrustpointRecord,
  explorerUrl: string | undefined,
  read: TrustPointRead | undefined,
  signatureValid: boolean | undefined,
): TrustpointVerification {
  const type = trustPointTypeName(trustpoint.type);
  const explorer = trustPointExplorerVerification({
    explorerUrl,
    smartContract: trustpoint.smartContract,
    transactionHash: trustpoint.transactionHash,
    certId,
    timestamp: trustpoint.timestamp,
    hash: trustpoint.hash,
    type,
  });
  const base = {
    type,
    networkId: Number(trustpoint.networkId),
    smartContract: trustpoint.smartContract,
    transactionHash: trustpoint.transactionHash,
    timestamp: trustpoint.timestamp,
    trustPointHash: trustpoint.hash,
    ...(signatureValid === undefined ? {} : { signatureValid }),
    explorer: explorer ?? null,
  };
  if (read === undefined) {
    return { ...base, onChain: null, hashMatches: false, typeMatches: false, status: 'pending' };
  }
  if (read.found !== true) {
    const status = read.found === false ? 'notFound' : 'unreachable';
    return { ...base, onChain: null, hashMatches: false, typeMatches: false, status };
  }
  const hashMatches = read.hash === trustpoint.hash;
  const typeMatches = read.type === type;
  return {
    ...base,
    onChain: { hash: read.hash, type: read.type },
    hashMatches,
    typeMatches,
    status: hashMatches && typeMatches && signatureValid !== false ? 'match' : 'mismatch',
  };
}

/**
 * Verification method 1: reads every trustpoint of the certificate back from its network with the
 * same `eth_call` an outside verifier makes, and reports per trustpoint whether hash and type match.
 * Trustpoints not yet anchored are reported as pending rather than read.
 */
export async function verifyCertificate(
  services: CertificateServices,
  record: CertificateRecord,
): Promise<CertificateVerification> {
  const trustpoints = await Promise.all(
    record.trustpoints.map(async (trustpoint) => {
      const signatureValid =
        trustpoint.type === 2
          ? await isQualifiedSignatureOf(services.signer, record, trustpoint)
          : undefined;
      const network = services.networks.get(trustpoint.networkId);
      const check = (read: TrustPointRead | undefined) =>
        checkOf(record.certId, trustpoint, network?.explorerUrl, read, signatureValid);
      if (trustpoint.transactionHash === null) return check(undefined);
      return check(
        network
          ? await reader.readTrustPoint(
              network,
              record.certId,
              trustpoint.timestamp,
              // The registry that anchored it, which stays its home if the network moves on.
              trustpoint.smartContract ?? undefined,
            )
          : { found: 'unreachable', detail: `network ${trustpoint.networkId} is not configured` },
      );
    }),
  );
  return {
    certID: record.certId,
    verified: trustpoints.length > 0 && trustpoints.every((check) => check.status === 'match'),
    revoked: record.revokedAt !== null,
    ...(record.revokedAt === null ? {} : { revokedAt: record.revokedAt }),
    trustpoints,
  };
}
