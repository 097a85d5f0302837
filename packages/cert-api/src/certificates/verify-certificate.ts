import { RecordReader, type NetworkConfig, type TrustPointRead } from '@trustpoint/chain';
import {
  listRegistriesInUse,
  type CertificateRecord,
  type RegistryInUse,
  type TrustpointRecord,
} from '@trustpoint/db';
import {
  trustPointExplorerVerification,
  trustPointTypeName,
  type ExplorerVerification,
  type TrustDocument,
  type TrustPointTypeName,
} from '@trustpoint/domain';
import {
  trustOfDocument,
  verifyCertificate as verifyWithVerifier,
  type CertificateExpiry,
  type CertificateVerdict,
  type CertificateVerification as VerifierResult,
  type IssuerCheck,
  type RevocationStatusCheck,
  type Trust,
} from '@trustpoint/verifier';
import type { CertificateServices } from './certificate-services.js';
import { certificateView } from './certificate-view.js';
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

/** A network's revocation status as the service read it (its nodes are not named: their URLs may hold keys). */
export interface ServiceRevocationStatus {
  networkId: number;
  outcome: RevocationStatusCheck['outcome'];
  statusRegistry?: string;
  revocation?: { timestamp: number; recordedAt: number };
  detail: string;
}

/** What every Trustpoint verifier concludes on a certificate, as the service found it. */
export interface ServiceVerdict {
  /**
   * The verdict `@trustpoint/verifier` gives, the CLI and both pages too, with the service's own
   * networks and registries as the trust: `verified` only when nothing below applies.
   */
  verdict: CertificateVerdict;
  /** The revocation proven on chain, with the chain's time of its record (ms). */
  revocation?: { networkId: number; timestamp: number; recordedAt: number };
  /** Each network holding an Evidence: its status registry's answer for the certID alone. */
  status: ServiceRevocationStatus[];
  expiry?: CertificateExpiry;
  /**
   * Who issued it: the account and the origin the certificate names. The service trusts its own
   * origin only, and never reads the document of another: a posted certificate must not make the
   * service call an address of its choosing.
   */
  issuer: IssuerCheck;
}

export interface CertificateVerification extends ServiceVerdict {
  certID: string;
  /** The verdict is `verified`: every trustpoint matches the chain, and it is not revoked or expired. */
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
 * What the service trusts when it verifies: its own networks, each with the registries it anchors
 * in, the ones its stored records name (earlier generations) and its status registry, pinned as
 * this machine's own (its registries may be held by the development accounts of a local chain),
 * and its own issuing origin, when it has one. The trust document, when published, is used
 * instead: it adds the genesis hashes.
 */
export function trustOfNetworks(
  networks: readonly NetworkConfig[],
  inUse: readonly RegistryInUse[] = [],
  origin?: string,
): Trust {
  return {
    ...(origin === undefined ? {} : { origins: [origin] }),
    networks: networks.map((network) => ({
      networkId: network.networkId,
      chainId: network.chainId,
      registries: [
        { kind: 'trustPointRegistry' as const, address: network.trustPointRegistry },
        { kind: 'evidenceRepository' as const, address: network.evidenceRepository },
        ...(network.statusRegistry === undefined
          ? []
          : [{ kind: 'statusRegistry' as const, address: network.statusRegistry }]),
        ...inUse
          .filter((registry) => registry.networkId === network.networkId)
          .map(({ kind, address }) => ({ kind, address })),
      ],
      pinnedBy: origin ?? 'this service',
      local: true,
    })),
  };
}

/**
 * The trust the service verifies with, for every route that does (method 1, a posted copy, the
 * PDF): its published trust document when it has one (genesis hashes, every registry it used),
 * else its networks' registries and the ones its records name; always as its own (local).
 */
export function serviceTrust(
  services: CertificateServices,
  trustDocument: (() => Promise<TrustDocument>) | undefined,
): () => Promise<Trust> {
  if (trustDocument !== undefined) {
    return async () => trustOfDocument(await trustDocument(), { local: true });
  }
  return async () =>
    trustOfNetworks(
      services.networks.list(),
      await listRegistriesInUse(services.knex),
      services.issuerOrigin?.(),
    );
}

/**
 * A certificate JSON (the stored one, or a holder's copy posted to the service) through the same
 * verifier every other Trustpoint verifier runs, asking the service's own nodes and trusting the
 * service's own registries. The result names no node: a node URL may carry an API key.
 */
export async function verifyCertificateJson(
  services: CertificateServices,
  certificate: unknown,
  trust: Trust,
): Promise<VerifierResult> {
  const rpc = Object.fromEntries(
    services.networks.list().map((network) => [network.networkId, [network.rpcUrl]]),
  );
  return verifyWithVerifier({
    certificate,
    rpc,
    trust,
    jwks: { keys: [...services.signer.jwks.keys] },
    // The service's clock, raised to the chain's as every verifier's is: a clock behind does not
    // hide an expiry the chain's time shows.
    clock: services.now,
    // The identity a certificate claims (data.issuerDomain), looked up in the DNS: a DNS query,
    // never a request to an address the certificate names.
    ...(services.resolveTxt === undefined ? {} : { resolveTxt: services.resolveTxt }),
    // The service reads no other origin's document (readIssuerDocument is off); should any URL
    // but its own nodes' ever be fetched, it is at a public address only.
    ...(services.verifierFetch === undefined ? {} : { fetch: services.verifierFetch }),
  });
}

/** The verifier's conclusion without node URLs (they may hold keys). */
export function serviceVerdictOf(result: VerifierResult): ServiceVerdict {
  return {
    verdict: result.verdict,
    ...(result.revocation === undefined ? {} : { revocation: result.revocation }),
    status: result.status.map((check) => ({
      networkId: check.networkId,
      outcome: check.outcome,
      ...(check.statusRegistry === undefined ? {} : { statusRegistry: check.statusRegistry }),
      ...(check.revocation === undefined ? {} : { revocation: check.revocation }),
      detail: check.detail,
    })),
    ...(result.expiry === undefined ? {} : { expiry: result.expiry }),
    issuer: result.issuer,
  };
}

/**
 * Verification method 1: reads every trustpoint of the certificate back from its network with the
 * same `eth_call` an outside verifier makes, and reports per trustpoint whether hash and type match.
 * Trustpoints not yet anchored are reported as pending rather than read. The verdict is the one
 * `@trustpoint/verifier` gives on the certificate's JSON, with the revocation status read from the
 * certID alone.
 */
export async function verifyCertificate(
  services: CertificateServices,
  record: CertificateRecord,
  trust: Trust,
): Promise<CertificateVerification> {
  const verdict = verifyCertificateJson(services, certificateView(record), trust).then(
    serviceVerdictOf,
  );
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
  const conclusion = await verdict;
  return {
    certID: record.certId,
    verified:
      conclusion.verdict === 'verified' &&
      trustpoints.length > 0 &&
      trustpoints.every((check) => check.status === 'match'),
    revoked: record.revokedAt !== null || conclusion.revocation !== undefined,
    ...(record.revokedAt === null ? {} : { revokedAt: record.revokedAt }),
    trustpoints,
    ...conclusion,
  };
}
