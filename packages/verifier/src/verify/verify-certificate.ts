import type { JSONWebKeySet } from 'jose';

import { decodeGetTrustPointResponse, getTrustPointRequest } from '../chain/trust-point-lookup.js';
import type { JsonObject } from '../hashing/canonical-json.js';
import {
  assetCertificateHash,
  contentCertificateHash,
  type AssetCertificateInput,
} from '../hashing/certificate-hash.js';
import { addedBesideData } from '../disclosure/certificate-members.js';
import { readDisclosableCertificate } from '../disclosure/disclosable-certificate.js';
import { SelectiveDisclosureError } from '../disclosure/selective-disclosure-error.js';
import type { WithheldField } from '../disclosure/sd-payload.js';
import { hashFileBytes, type FileHashes } from '../hashing/file-hasher.js';
import { isHashHex } from '../hashing/hash-hex.js';
import { revocationTrustPointHash } from '../hashing/trustpoint-hash.js';
import type { JsonRpcOptions, NodeAttempt } from '../rpc/json-rpc-nodes.js';
import type { PublicChain } from '../rpc/public-endpoints.js';
import {
  qualifiedSignatureTrustPointHash,
  verifyQualifiedSignature,
  type SignatureCheck,
} from '../signature/qualified-signature.js';
import { TRUST_POINT_TYPE_NAMES, type TrustPointTypeName } from '../trustpoint-type.js';
import { trustPointKey } from '../chain/record-key.js';
import { TRUST_POINT_TYPE_CODES } from '../trustpoint-type.js';
import { normalizeOrigin } from '../trust/trust-document.js';
import type { Trust } from '../trust/trust.js';
import type { EndpointAnswer } from './node-reads.js';
import { lookupContext, lookUpRecord, type LookupContext } from './on-chain-read.js';
import { establishStanding, standingOutcome, type ChainTime } from './record-standing.js';
import { checkRevocationStatus, type RevocationStatusCheck } from './revocation-status.js';
import { checkIssuer, type IssuerCheck } from './issuer-check.js';
import type { TxtResolver } from '../identity/dns-over-https.js';
import { checkIssuerIdentity, type IssuerIdentity } from '../identity/issuer-identity.js';
import { issuerDomainRecordName, normalizeIssuerDomain } from '../identity/issuer-domain-record.js';
import {
  assertNestingWithin,
  field,
  isAddress,
  isJsonObject,
  isNetworkId,
  isObject,
  isSafeInteger,
  isString,
  isTimestamp,
  isTransactionHash,
  optionalField,
  unwrapEnvelope,
  VerifierInputError,
} from './record-input.js';
import type { RpcUrls } from './rpc-urls.js';
import { latestChainTime } from './chain-clock.js';

/**
 * Verdict on one trustpoint:
 * - `anchored`: an Evidence on chain with the hash the rules give for this certificate;
 * - `revoked`: a Revocation on chain with the hash of the revocation sentence;
 * - `signed`: a Signature on chain with the hash of the JWS, which verifies with the key set;
 * - `signatureInvalid`: the Signature is on chain, but the JWS does not verify or signs other fields;
 * - `signatureUnchecked`: the Signature is on chain, but no key set (or no JWS) was given;
 * - `mismatch`: the chain holds another hash or type, or the certificate JSON contradicts the rules;
 * - `notFound`: the node answered that no record has this key (revert `0x16fd89cc`);
 * - `pending`: not anchored yet (no contract named), nothing to check;
 * - `untrusted`: on chain as the rules say, but in a registry nothing you trust pins (or held by
 *   a development account, or written outside the blocks it is trusted for);
 * - `untimed`: on chain as the rules say, but the transaction it names did not write it, so the
 *   chain cannot date it;
 * - `unreachable`: no node answered (or none proved to be on the pinned chain); `unexpected`:
 *   nodes answered, but not with a record or the not-found revert (no contract at the address);
 * - `disagreement`: you gave no node for the network and the public endpoints asked instead
 *   answered differently (the record, or its receipt): none is believed.
 */
export type TrustpointVerdict =
  | 'anchored'
  | 'revoked'
  | 'signed'
  | 'signatureInvalid'
  | 'signatureUnchecked'
  | 'mismatch'
  | 'notFound'
  | 'pending'
  | 'untrusted'
  | 'untimed'
  | 'unreachable'
  | 'unexpected'
  | 'disagreement';

export interface TrustpointVerification {
  type: TrustPointTypeName;
  networkId: number;
  timestamp: number;
  smartContract?: string;
  transactionHash?: string;
  /** What the certificate JSON says is on chain. */
  trustPointHash: string;
  /** What the published rules say must be on chain. */
  expectedHash: string;
  /** What `getTrustPoint(certID, timestamp)` returned, when a node found it. */
  onChain?: { hash: string; type: TrustPointTypeName };
  /** The node whose answer was used. */
  node?: string;
  /** Public endpoints (you gave no node for the network): every one whose answer agreed. */
  nodes?: string[];
  /** Public endpoints that disagreed: what each answered. */
  answers?: EndpointAnswer[];
  /** When the chain wrote it: the block of the transaction that wrote this record. */
  chainTime?: ChainTime;
  /** Who the registry is trusted through (`you`, or a service origin), when it is. */
  trustedThrough?: string;
  /**
   * Every source whose pin holds this record (the one it was read under first): another pin of
   * the same address counts only when the answering node is on its chain and its blocks hold the
   * write. Only these can vouch for the issuing origin.
   */
  vouchedBy?: string[];
  /** Nodes asked before it, and why their answer was not used. */
  attempts: NodeAttempt[];
  signature?: SignatureCheck;
  verdict: TrustpointVerdict;
  /** One sentence for a person. */
  detail: string;
}

/** How the certificate hash was obtained: recomputed from what it certifies, or taken as given. */
export interface CertificateHashCheck {
  /** `data.hash` as the JSON gives it. */
  given: string;
  /** Recomputed by the type's rule, when the certified content is at hand. */
  recomputed?: string;
  /** File certificates checked against a file: its sha256 against `data.fileHash` too. */
  fileHash?: { given: string | undefined; recomputed: string };
  matches: boolean;
  detail: string;
  /**
   * The rule `data.hash` follows: 1 (no `data.hashVersion`: the content or the file only) or 2
   * (every shown field, the content selectively disclosable).
   */
  version: 1 | 2;
  /**
   * The shown fields the anchored hash covers (`certID` and names under `data`): a copy that
   * changes one of them no longer verifies. Version 1: the content (content and asset
   * certificates) or, when given, the file (`fileHash`).
   */
  covered: string[];
  /**
   * Shown fields the hash does not cover: claims of whoever handed the JSON on, unverified.
   * Version 1: name, description, issuer, the dates, and the content of a file or URL certificate.
   * Version 2 covers every field the service issues, so any here (`readDisclosableCertificate`'s
   * `uncovered`) was added to the copy and makes the hash check fail. Members added beside `data`
   * (anything but `certID`, `data`, `metadata`, `access` and `status`) are named `$.<name>`.
   */
  unverified: string[];
  /** Version 2: what the holder withheld from this copy (a member by its object, its name hidden too). */
  withheld: WithheldField[];
  /** Version 2: why the rule refused the copy (`SelectiveDisclosureError`'s code), when it did. */
  refusal?: string;
}

/**
 * The certificate's verdict, the first that applies in this order: `mismatch` (a hash differs, a
 * signature is invalid), `notFound` (a trustpoint is not on chain or not anchored yet),
 * `unchecked` (no node answered, public endpoints disagreed, the hash covers nothing shown (a
 * version 1 file certificate without its file; a version 1 URL certificate, whose hash is of
 * the page's bytes alone, none of the fields it shows), a time or a signature could not be
 * checked), `untrusted` (on
 * chain, but in a registry you do not trust), `issuerUntrusted` (valid in a registry you trust,
 * but the certificate names an issuing origin you do not trust, or one that does not publish that
 * registry), `revoked` (a revocation proven on chain: in a
 * trusted status registry, or a Revocation trustpoint the JSON lists), `revocationUnchecked` (no
 * revocation found, but the status of a network holding its Evidence could not be read), `expired`,
 * `verified`. A proven revocation outranks a status that could not be read elsewhere: the
 * certificate is revoked whatever the other network would say.
 */
export type CertificateVerdict =
  | 'mismatch'
  | 'notFound'
  | 'unchecked'
  | 'untrusted'
  | 'issuerUntrusted'
  | 'revoked'
  | 'revocationUnchecked'
  | 'expired'
  | 'verified';

/** The verdicts in their precedence, the strongest first. */
export const CERTIFICATE_VERDICT_PRECEDENCE: readonly CertificateVerdict[] = [
  'mismatch',
  'notFound',
  'unchecked',
  'untrusted',
  'issuerUntrusted',
  'revoked',
  'revocationUnchecked',
  'expired',
  'verified',
];

export interface CertificateVerification {
  certID: string;
  /** Every trustpoint checked and matching, and no revocation on chain. */
  verified: boolean;
  /** A revocation proven on chain: in a trusted status registry, or a Revocation trustpoint. */
  revoked: boolean;
  /**
   * The revocation, when one is proven: its network, the timestamp the service gave it (ms) and
   * when the chain recorded it (ms, the block's time).
   */
  revocation?: { networkId: number; timestamp: number; recordedAt: number };
  verdict: CertificateVerdict;
  /**
   * The revocation status of every network holding an Evidence trustpoint, read from the certID
   * alone (`revocationOf`), whatever revocations the JSON lists.
   */
  status: RevocationStatusCheck[];
  /** `data.expires` when the certificate has one (milliseconds), and whether it has passed. */
  expiry?: CertificateExpiry;
  hash: CertificateHashCheck;
  /** Who issued it: the account, and the origin the certificate names, whether you trust it. */
  issuer: IssuerCheck;
  trustpoints: TrustpointVerification[];
}

/** A certificate's expiry date and whether it has passed, and at what time that was judged. */
export interface CertificateExpiry {
  /** `data.expires`, ms since the epoch. */
  expires: number;
  expired: boolean;
  /**
   * The time it was judged at (ms): `now` when the caller gave one, else the later of the
   * verifier's clock and `chainTime`.
   */
  judgedAt: number;
  /** The latest block's time (ms) of the nodes that answered for the records, when one told it. */
  chainTime?: number;
}

export interface VerifyCertificateInput extends JsonRpcOptions {
  /** A certificate as the certificate API returns it (with or without its envelope). */
  certificate: unknown;
  /**
   * File and URL certificates: the certified bytes (or their hashes, from `hashFileStream` for a
   * large file). Without them the certificate hash is taken as the JSON gives it.
   */
  file?: Uint8Array | FileHashes;
  /** The nodes to ask, per network id. */
  rpc: RpcUrls;
  /**
   * Public endpoints of well-known chains (`PUBLIC_CHAINS`, or your own list), asked only for a
   * network `rpc` gives no node for; a record counts only when two of different operators agree.
   * None by default.
   */
  publicEndpoints?: readonly PublicChain[];
  /** Public keys of the service's qualified signatures (`/.well-known/jwks.json`). */
  jwks?: JSONWebKeySet;
  /**
   * The origin `jwks` was read from, when it was read from a service rather than chosen by you (a
   * link's or `--url`'s service). A key set of another origin than the one the certificate names
   * as its issuer cannot prove a signature wrong (it may simply lack the key): such a refusal is
   * `signatureUnchecked`, not `signatureInvalid`. A valid signature is valid whoever served the
   * keys: the Signature record on chain covers the JWS.
   */
  jwksOrigin?: string;
  /**
   * The networks and registries you trust (pinned by you, or published by a service origin you
   * trust). A record in any other registry is at best `untrusted`, whatever the certificate names.
   */
  trust?: Trust;
  /**
   * Read the trust document of an issuing origin you do not trust, to say whether it publishes the
   * registry the certificate is recorded in (shown, never trusted). Only https origins with public
   * names are ever read; default false.
   */
  readIssuerDocument?: boolean;
  /**
   * Looks up the DNS TXT record of the domain a certificate names as its issuer's identity
   * (`_trustpoint.<domain>`): Node's `dns.promises.Resolver`, or `dnsOverHttpsTxt` in a browser.
   * Without it the domain is shown unchecked, a claim.
   */
  resolveTxt?: TxtResolver;
  /**
   * The time expiry is judged at (ms), exactly: a question about another moment ("was it valid
   * then?"). By default the later of `clock` and the chain's (the latest block of the nodes that
   * answered), so a clock set back does not hide an expiry.
   */
  now?: number;
  /** The verifier's own clock (ms), raised to the chain's time when judging expiry. `Date.now`. */
  clock?: () => number;
}

interface CertificateInput {
  certID: string;
  type: string;
  /** `data.hashVersion` as given: absent for version 1. */
  hashVersion: unknown;
  /** The certificate itself (out of its envelope), for the version 2 rule. */
  json: Record<string, unknown>;
  content: JsonObject;
  issuer: string;
  /** `data.issuerOrigin` as given (version 2 covers it). */
  issuerOrigin: string | undefined;
  /** `data.issuerDomain` as given (version 2 covers it). */
  issuerDomain: string | undefined;
  issuedOn: number;
  hash: string;
  fileHash: string | undefined;
  expires: number | undefined;
  metadata: MetadataInput[];
}

interface MetadataInput {
  type: TrustPointTypeName;
  networkId: number;
  timestamp: number;
  smartContract: string | undefined;
  transactionHash: string | undefined;
  trustPointHash: string;
  signature: string | undefined;
}

const isHash = (value: unknown): value is string => isString(value) && isHashHex(value);
const isTypeName = (value: unknown): value is TrustPointTypeName =>
  TRUST_POINT_TYPE_NAMES.includes(value as TrustPointTypeName);

/**
 * The most trustpoints (`metadata` items) a certificate may list. A genuine one lists an Evidence
 * per network it is anchored on (two on one network once re-anchored under version 2), at most
 * one Signature and at most one Revocation: a handful. 64 leaves room for one Evidence on each of
 * some sixty networks, while every item costs each verifier several node reads, so a forged copy
 * listing thousands cannot make a verifier (or the service checking a posted copy) ask its nodes
 * thousands of times.
 */
export const MAX_CERTIFICATE_TRUSTPOINTS = 64;

/** Reads the fields verification needs; throws VerifierInputError naming the first bad one. */
export function readCertificate(json: unknown): CertificateInput {
  const certificate = unwrapEnvelope(json);
  if (!isObject(certificate)) throw new VerifierInputError('A certificate is a JSON object');
  assertNestingWithin(certificate, 'certificate');
  const certID = field(certificate, 'certID', isString, 'a string', '$');
  const data = field(certificate, 'data', isObject, 'an object', '$');
  const metadata = field(certificate, 'metadata', Array.isArray, 'an array', '$');
  if (metadata.length > MAX_CERTIFICATE_TRUSTPOINTS) {
    throw new VerifierInputError(
      `$.metadata lists ${String(metadata.length)} trustpoints; a certificate lists at most ${String(MAX_CERTIFICATE_TRUSTPOINTS)}`,
    );
  }
  return {
    certID,
    type: field(data, 'type', isString, 'a string', '$.data'),
    hashVersion: data.hashVersion,
    json: certificate,
    content: optionalField(data, 'content', isJsonObject, 'an object', '$.data') ?? {},
    issuer: field(data, 'issuer', isString, 'a string', '$.data'),
    // Read as given: the version 2 rule refuses a malformed one, version 1 ignores it.
    issuerOrigin: isString(data.issuerOrigin) ? data.issuerOrigin : undefined,
    issuerDomain: isString(data.issuerDomain) ? data.issuerDomain : undefined,
    issuedOn: field(data, 'issuedOn', isSafeInteger, 'an integer', '$.data'),
    hash: field(data, 'hash', isHash, '64 lowercase hex characters', '$.data'),
    fileHash: optionalField(data, 'fileHash', isHash, '64 lowercase hex characters', '$.data'),
    expires: optionalField(data, 'expires', isSafeInteger, 'an integer', '$.data'),
    metadata: metadata.map((item: unknown, index) => {
      const path = `$.metadata[${index}]`;
      if (!isObject(item)) throw new VerifierInputError(`${path} must be an object`);
      return {
        type: field(item, 'type', isTypeName, 'Evidence, Revocation or Signature', path),
        networkId: Number(field(item, 'networkId', isNetworkId, 'a network id', path)),
        timestamp: field(item, 'timestamp', isTimestamp, 'an integer, 0 or more', path),
        smartContract: optionalField(item, 'smartContract', isAddress, 'an address', path),
        transactionHash: optionalField(
          item,
          'transactionHash',
          isTransactionHash,
          'a transaction hash (0x and 64 hex digits)',
          path,
        ),
        trustPointHash: field(item, 'trustPointHash', isHash, '64 lowercase hex characters', path),
        signature: optionalField(item, 'signature', isString, 'a string', path),
      };
    }),
  };
}

/** The shown fields of `data` besides the content, each present only when the JSON has it. */
const SHOWN_FIELDS = ['name', 'description', 'issuer', 'issuedOn', 'expires'] as const;

function checkCertificateHash(
  certificate: CertificateInput,
  file: Uint8Array | FileHashes | undefined,
): CertificateHashCheck {
  const check = checkCertificateHashOfType(certificate, file);
  // A file given with a certificate that certifies none: whoever gave it wants to know whether
  // this certificate certifies it, and it does not (a genuine diploma handed over with a forged
  // PDF must not read as the PDF verified).
  if (file !== undefined && certificate.type !== 'file' && certificate.type !== 'url') {
    return {
      ...check,
      matches: false,
      detail: `a file was given, but this ${certificate.type} certificate's hash covers no file: the file is not what it certifies`,
    };
  }
  return check;
}

function checkCertificateHashOfType(
  certificate: CertificateInput,
  file: Uint8Array | FileHashes | undefined,
): CertificateHashCheck {
  if (certificate.hashVersion !== undefined) return checkCertificateHashV2(certificate, file);
  const check = checkCertificateHashV1(certificate, file);
  const data = certificate.json.data as Record<string, unknown>;
  const contentCovered = certificate.type === 'content' || certificate.type === 'asset';
  const fileCovered = certificate.type === 'file' && check.fileHash !== undefined && check.matches;
  return {
    ...check,
    version: 1,
    covered: [...(contentCovered ? ['content'] : []), ...(fileCovered ? ['fileHash'] : [])],
    unverified: [
      ...SHOWN_FIELDS.filter((name) => data[name] !== undefined),
      ...(contentCovered || data.content === undefined ? [] : ['content']),
      ...(data.fileHash === undefined || fileCovered ? [] : ['fileHash']),
      ...addedBesideData(certificate.json),
    ],
    withheld: [],
  };
}

/**
 * Version 2: the root recomputed from every shown field (and the disclosures), compared with
 * `data.hash`; a copy the rule refuses (a disclosure that does not match, a field withheld that
 * cannot be) is a mismatch with the reason. With the file (or the URL's bytes), their sha256 must
 * be `data.fileHash`, which the root covers.
 */
function checkCertificateHashV2(
  certificate: CertificateInput,
  file: Uint8Array | FileHashes | undefined,
): CertificateHashCheck {
  const given = certificate.hash;
  const base = { given, version: 2 as const, covered: [], unverified: [], withheld: [] };
  let reading;
  try {
    reading = readDisclosableCertificate(certificate.json);
  } catch (error) {
    if (!(error instanceof SelectiveDisclosureError)) throw error;
    return {
      ...base,
      matches: false,
      refusal: error.code,
      detail: `the copy breaks the version 2 rule (${error.code}): ${error.message}`,
    };
  }
  const covered = Object.keys(reading.payload).filter((name) => name !== '_sd_alg');
  // Anything else the copy shows (a `fileName` added to `data`, ...) is nobody's but the copy's.
  const { uncovered: unverified } = reading;
  const check = {
    ...base,
    recomputed: reading.hash,
    covered,
    unverified,
    withheld: reading.withheld,
  };
  if (reading.hash !== given) {
    return {
      ...check,
      matches: false,
      detail: `data.hash is not the version 2 root of the fields shown (${reading.hash}): a shown field (name, description, issuer, a date, the content, ...) was changed`,
    };
  }
  // Version 2 covers every field the service issues: a member it does not cover was added to the
  // copy, which is then not the certificate as issued (shown beside a verdict, it would be believed).
  if (unverified.length > 0) {
    return {
      ...check,
      matches: false,
      detail: `the copy shows ${unverified.join(', ')}, which the version 2 rule does not cover: added after issuance, so this is not the certificate as issued (the hash matches the fields it covers)`,
    };
  }
  const withheld =
    reading.withheld.length === 0
      ? ''
      : `; ${String(reading.withheld.length)} content field(s) withheld by the holder`;
  if (file === undefined || (certificate.type !== 'file' && certificate.type !== 'url')) {
    const bytes =
      certificate.type === 'file' || certificate.type === 'url'
        ? `; give the ${certificate.type === 'file' ? 'file' : "URL's bytes"} to check them against data.fileHash`
        : '';
    return {
      ...check,
      matches: true,
      detail: `data.hash recomputed by the version 2 rule over every shown field${withheld}${bytes}`,
    };
  }
  const hashes = file instanceof Uint8Array ? hashFileBytes(file) : file;
  const fileHashMatches = certificate.fileHash === hashes.fileHash;
  return {
    ...check,
    fileHash: { given: certificate.fileHash, recomputed: hashes.fileHash },
    matches: fileHashMatches,
    detail: fileHashMatches
      ? `data.hash recomputed by the version 2 rule over every shown field, data.fileHash from the ${certificate.type === 'file' ? 'file' : "URL's bytes"}${withheld}`
      : `${certificate.type === 'file' ? 'the file does' : "the URL's bytes do"} not match the certificate: their sha256 is ${hashes.fileHash}`,
  };
}

/** What a version 1 asset certificate's content holds: the members its rule hashes. */
const ASSET_V1_MEMBERS: readonly string[] = ['assetId', 'from', 'to', 'content'];

/** Version 1 (DESIGN.md 3): the content or the file only. */
function checkCertificateHashV1(
  certificate: CertificateInput,
  file: Uint8Array | FileHashes | undefined,
): Omit<CertificateHashCheck, 'version' | 'covered' | 'unverified' | 'withheld'> {
  const given = certificate.hash;
  const recomputedBy = (recomputed: string, rule: string) => ({
    given,
    recomputed,
    matches: recomputed === given,
    detail:
      recomputed === given
        ? `data.hash recomputed by the ${rule} rule`
        : `data.hash is not what the ${rule} rule gives (${recomputed}): the certified ${certificate.type === 'file' ? 'file' : 'content'} or the certificate was changed`,
  });
  switch (certificate.type) {
    case 'content':
      return recomputedBy(contentCertificateHash(certificate.content), 'content');
    case 'asset': {
      if (!isString(certificate.content.assetId)) {
        return { given, matches: false, detail: 'an asset certificate content names no assetId' };
      }
      // The API shows exactly the object it hashed; the rule takes its four members only, so a
      // member beside them was added to the copy: shown as certified, it would be believed.
      const added = Object.keys(certificate.content).filter(
        (name) => !ASSET_V1_MEMBERS.includes(name),
      );
      if (added.length > 0) {
        return {
          given,
          matches: false,
          detail: `an asset certificate's content holds only ${ASSET_V1_MEMBERS.join(', ')}; this copy adds ${added.join(', ')}`,
        };
      }
      return recomputedBy(
        assetCertificateHash(certificate.content as unknown as AssetCertificateInput),
        'asset',
      );
    }
    case 'file':
    case 'url': {
      if (file === undefined) {
        return {
          given,
          matches: true,
          detail: `data.hash taken from the certificate: give the ${certificate.type === 'file' ? 'file' : "URL's bytes"} to check it`,
        };
      }
      const hashes = file instanceof Uint8Array ? hashFileBytes(file) : file;
      // Version 1 hashes any bytes; bytes that begin with a version 2 domain are the preimage of
      // a version 2 hash, and would turn a version 2 certificate into a version 1 copy that
      // covers nothing it shows (nor its origin, nor its expiry).
      if (hashes.hashDomain !== null) {
        return {
          given,
          recomputed: hashes.hash,
          matches: false,
          detail:
            typeof hashes.hashDomain === 'string'
              ? `the ${certificate.type === 'file' ? 'file' : "URL's bytes"} begin with ${JSON.stringify(hashes.hashDomain)}: the bytes a version 2 hash is made from, not what a version 1 certificate certifies (a version 2 certificate turned into a version 1 copy)`
              : 'the file hashes given do not say how the file begins (hashDomain): hash the file with hashFileStream or createFileHasher',
        };
      }
      const check = recomputedBy(hashes.hash, certificate.type);
      if (certificate.type === 'url') return check;
      const fileHashMatches = certificate.fileHash === hashes.fileHash;
      return {
        ...check,
        fileHash: { given: certificate.fileHash, recomputed: hashes.fileHash },
        matches: check.matches && fileHashMatches,
        detail: check.matches
          ? fileHashMatches
            ? 'data.hash and data.fileHash recomputed from the file'
            : `data.fileHash is not the file's sha256 (${hashes.fileHash})`
          : `the file does not match the certificate: its double hash is ${hashes.hash}`,
      };
    }
    default:
      return { given, matches: false, detail: `unknown certificate type ${certificate.type}` };
  }
}

/** The hash the rules require on chain for this trustpoint; undefined when it cannot be known. */
function expectedHashOf(
  certificate: CertificateInput,
  ruleHash: string,
  item: MetadataInput,
): string | undefined {
  switch (item.type) {
    case 'Evidence':
      return ruleHash;
    case 'Revocation':
      return revocationTrustPointHash(certificate.certID);
    case 'Signature':
      return item.signature === undefined
        ? undefined
        : qualifiedSignatureTrustPointHash(item.signature);
  }
}

async function verifyTrustpoint(
  certificate: CertificateInput,
  ruleHash: string,
  item: MetadataInput,
  input: VerifyCertificateInput,
  context: LookupContext,
): Promise<TrustpointVerification> {
  const expectedHash = expectedHashOf(certificate, ruleHash, item) ?? item.trustPointHash;
  const base = {
    type: item.type,
    networkId: item.networkId,
    timestamp: item.timestamp,
    ...(item.smartContract === undefined ? {} : { smartContract: item.smartContract }),
    ...(item.transactionHash === undefined ? {} : { transactionHash: item.transactionHash }),
    trustPointHash: item.trustPointHash,
    expectedHash,
  };
  const done = (
    verdict: TrustpointVerdict,
    detail: string,
    more: Partial<TrustpointVerification> = {},
  ): TrustpointVerification => ({ ...base, attempts: [], ...more, verdict, detail });

  const read = await lookUpRecord(
    {
      networkId: item.networkId,
      smartContract: item.smartContract,
      registryKind: 'trustPointRegistry',
      holder: 'certificate',
      contract: 'registry',
      key: `(certID, ${String(item.timestamp)})`,
    },
    (smartContract) =>
      getTrustPointRequest({
        smartContract,
        certId: certificate.certID,
        timestampMs: item.timestamp,
      }),
    decodeGetTrustPointResponse,
    context,
  );
  if (read.outcome !== 'found') return done(read.outcome, read.detail, read.more);
  const { answered } = read;
  const onChain = { hash: read.value.hash, type: read.value.type };
  let found: Partial<TrustpointVerification> = { ...answered, onChain };
  if (onChain.type !== item.type) {
    return done('mismatch', `the chain holds a ${onChain.type}, not a ${item.type}`, found);
  }
  if (onChain.hash !== expectedHash) {
    return done(
      'mismatch',
      onChain.hash === item.trustPointHash
        ? 'the chain holds the hash the certificate names, but the rules give another: what it certifies was changed'
        : 'the chain holds another hash than the rules give',
      found,
    );
  }
  if (item.trustPointHash !== expectedHash) {
    return done('mismatch', "the certificate's trustPointHash contradicts the chain", found);
  }
  // The record is what the rules say: now whether its registry is trusted, and when it was written.
  const standing = await establishStanding(
    {
      kind: 'trustPoint',
      registry: item.smartContract ?? '',
      key: trustPointKey(certificate.certID, item.timestamp),
      hash: expectedHash,
      type: TRUST_POINT_TYPE_CODES[item.type],
    },
    item.transactionHash,
    read.registryTrust,
    read.checkedNodes,
    context,
  );
  const outcome = standingOutcome(standing);
  found = { ...found, ...outcome.more };
  if (outcome.verdict !== undefined) return done(outcome.verdict, outcome.detail, found);
  switch (item.type) {
    case 'Evidence':
      return done('anchored', 'on chain with the certificate hash', found);
    case 'Revocation':
      return done('revoked', 'the certificate was revoked on chain', found);
    case 'Signature': {
      if (item.signature === undefined) {
        return done('signatureUnchecked', 'the certificate carries no JWS to check', found);
      }
      if (input.jwks === undefined) {
        return done('signatureUnchecked', 'no key set given to check the JWS', found);
      }
      const signature = await verifyQualifiedSignature({
        jws: item.signature,
        certificate: {
          certID: certificate.certID,
          hash: ruleHash,
          fileHash: certificate.fileHash,
          issuer: certificate.issuer,
          issuedOn: certificate.issuedOn,
          type: certificate.type,
        },
        signedAt: item.timestamp,
        jwks: input.jwks,
      });
      if (signature.valid) {
        return done(
          'signed',
          `qualified signature valid (${signature.algorithm}, key ${signature.kid ?? '-'})`,
          { ...found, signature },
        );
      }
      const issuingOrigin = keysOfAnotherOrigin(certificate, input.jwksOrigin);
      return issuingOrigin === undefined
        ? done('signatureInvalid', signature.reason, { ...found, signature })
        : done(
            'signatureUnchecked',
            `${signature.reason}; but the key set was read from ${input.jwksOrigin ?? ''}, not from the issuing origin ${issuingOrigin}, so it cannot prove the signature wrong`,
            { ...found, signature },
          );
    }
  }
}

/**
 * The issuing origin a certificate names (version 2), when the key set came from another origin;
 * undefined when the keys are the issuer's own, chosen by the user, or the certificate names none.
 */
function keysOfAnotherOrigin(
  certificate: CertificateInput,
  jwksOrigin: string | undefined,
): string | undefined {
  if (jwksOrigin === undefined || certificate.hashVersion === undefined) return undefined;
  if (certificate.issuerOrigin === undefined) return undefined;
  const issuer = normalizeOrigin(certificate.issuerOrigin) ?? certificate.issuerOrigin;
  return normalizeOrigin(jwksOrigin) === issuer ? undefined : issuer;
}

/** Verdicts under which the certificate is proven issued where its records are. */
const ESTABLISHED: readonly CertificateVerdict[] = [
  'verified',
  'revoked',
  'revocationUnchecked',
  'expired',
];

/** The identity of a copy not proven to come from its origin: named, not looked up. */
function notLookedUp(
  given: string,
  issuer: IssuerCheck,
  verdict: CertificateVerdict,
): IssuerIdentity {
  const domain = normalizeIssuerDomain(given) ?? given;
  const why =
    issuer.outcome === 'trusted' || issuer.origin === undefined
      ? `this copy is not proven to be issued where it says (${verdict})`
      : `this copy is not proven to come from ${issuer.origin} until you trust it and it publishes the registry`;
  return {
    domain,
    recordName: issuerDomainRecordName(domain),
    outcome: 'unchecked',
    detail: `not looked up: ${why}; its domain is a claim`,
  };
}

/** The certificate's verdict from its parts, in the precedence of `CertificateVerdict`. */
function overallVerdict(
  hash: CertificateHashCheck,
  trustpoints: readonly TrustpointVerification[],
  issuer: IssuerCheck,
  status: readonly RevocationStatusCheck[],
  expired: boolean,
): CertificateVerdict {
  const has = (...verdicts: TrustpointVerdict[]) =>
    trustpoints.some((trustpoint) => verdicts.includes(trustpoint.verdict));
  if (!hash.matches || has('mismatch', 'signatureInvalid')) return 'mismatch';
  if (trustpoints.length === 0 || has('notFound', 'pending')) return 'notFound';
  if (
    has('unreachable', 'unexpected', 'untimed', 'signatureUnchecked', 'disagreement') ||
    !trustpoints.some((trustpoint) => trustpoint.type === 'Evidence') ||
    // A hash that covers nothing shown (a version 1 file certificate checked without its file, a
    // version 1 URL certificate, whose hash is of the page's bytes alone, with them or not)
    // proves only that some hash is on chain: any name, issuer or date could be put beside it, a
    // version 2 record's root too, stripped of what it covers.
    hash.covered.length === 0
  ) {
    return 'unchecked';
  }
  if (has('untrusted')) return 'untrusted';
  if (issuer.outcome === 'untrusted') return 'issuerUntrusted';
  if (has('revoked') || status.some((check) => check.outcome === 'revoked')) return 'revoked';
  if (status.some((check) => check.outcome === 'unchecked')) return 'revocationUnchecked';
  return expired ? 'expired' : 'verified';
}

/**
 * The revocation proven on chain, the earliest by the chain's clock: from a status registry, or a
 * Revocation trustpoint the JSON lists (dated by its block, else by its own timestamp).
 */
function revocationOf(
  trustpoints: readonly TrustpointVerification[],
  status: readonly RevocationStatusCheck[],
): CertificateVerification['revocation'] {
  const found = [
    ...status.flatMap((check) =>
      check.revocation === undefined ? [] : [{ networkId: check.networkId, ...check.revocation }],
    ),
    ...trustpoints
      .filter((trustpoint) => trustpoint.verdict === 'revoked')
      .map((trustpoint) => ({
        networkId: trustpoint.networkId,
        timestamp: trustpoint.timestamp,
        recordedAt: trustpoint.chainTime?.timestamp ?? trustpoint.timestamp,
      })),
  ];
  return found.sort((a, b) => a.recordedAt - b.recordedAt)[0];
}

/**
 * Whether `expires` has passed: at `input.now` when given, else at the later of this clock and the
 * chain's (its latest block, read from the nodes that answered for the records).
 */
async function checkExpiry(
  expires: number,
  trustpoints: readonly TrustpointVerification[],
  input: VerifyCertificateInput,
): Promise<CertificateExpiry> {
  if (input.now !== undefined)
    return { expires, expired: input.now >= expires, judgedAt: input.now };
  const clock = (input.clock ?? Date.now)();
  // Every node that answered for a record, not only the first named.
  const nodes = trustpoints.flatMap(
    (trustpoint) => trustpoint.nodes ?? (trustpoint.node === undefined ? [] : [trustpoint.node]),
  );
  const chainTime = nodes.length === 0 ? undefined : await latestChainTime(nodes, input);
  const judgedAt = Math.max(clock, chainTime ?? clock);
  return {
    expires,
    expired: judgedAt >= expires,
    judgedAt,
    ...(chainTime === undefined ? {} : { chainTime }),
  };
}

/**
 * Verifies a certificate without trusting its issuer: recomputes its hash by the published rule
 * (from the file when given), derives the hash every trustpoint must have, reads each one with a
 * raw `eth_call` from the trusted nodes only, and checks a qualified signature against the key set.
 */
export async function verifyCertificate(
  input: VerifyCertificateInput,
): Promise<CertificateVerification> {
  const certificate = readCertificate(input.certificate);
  const hash = checkCertificateHash(certificate, input.file);
  const ruleHash = hash.recomputed ?? certificate.hash;
  const context = lookupContext(input);
  const trustpoints = await Promise.all(
    certificate.metadata.map((item) =>
      verifyTrustpoint(certificate, ruleHash, item, input, context),
    ),
  );
  // The status of every network holding an Evidence: a copy made before its revocation lists no
  // Revocation trustpoint, and its certID alone finds one.
  // Each with the sources that vouch for an Evidence there: only their status registries can say
  // "not revoked".
  const evidenceNetworks = new Map<number, Set<string>>();
  for (const trustpoint of trustpoints) {
    if (trustpoint.type !== 'Evidence') continue;
    const vouchers = evidenceNetworks.get(trustpoint.networkId) ?? new Set<string>();
    for (const source of trustpoint.vouchedBy ?? []) vouchers.add(source);
    evidenceNetworks.set(trustpoint.networkId, vouchers);
  }
  const status = await Promise.all(
    [...evidenceNetworks].map(([networkId, vouchers]) =>
      checkRevocationStatus(certificate.certID, networkId, [...vouchers], context),
    ),
  );
  const expiry =
    certificate.expires === undefined
      ? undefined
      : await checkExpiry(certificate.expires, trustpoints, input);
  const issuerCheck = await checkIssuer({
    account: certificate.issuer,
    // Only a version 2 hash covers the origin; a version 1 copy's would be anyone's claim.
    issuerOrigin: hash.version === 2 ? certificate.issuerOrigin : undefined,
    covered: hash.version === 2 && hash.matches,
    hashVersion: hash.version,
    // The Evidences the chain holds as the rules say: a record not found, or holding another
    // hash, is recorded nowhere.
    recordedIn: trustpoints.flatMap((trustpoint) =>
      trustpoint.type === 'Evidence' &&
      trustpoint.smartContract !== undefined &&
      trustpoint.verdict === 'anchored'
        ? [
            {
              networkId: trustpoint.networkId,
              smartContract: trustpoint.smartContract,
              vouchedBy: trustpoint.vouchedBy ?? [],
            },
          ]
        : [],
    ),
    trust: input.trust,
    readIssuerDocument: input.readIssuerDocument === true && hash.matches,
    ...(input.fetch === undefined ? {} : { fetch: input.fetch }),
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  });
  const verdict = overallVerdict(hash, trustpoints, issuerCheck, status, expiry?.expired ?? false);
  // The identity it claims, checked in the DNS: shown, never a verdict. Looked up only for a copy
  // proven to be issued at its origin (a trusted origin publishing its registry, the records on
  // chain): the record names an origin and an account, which a forged or changed copy can copy.
  // A version 1 copy's domain would be anyone's claim, so it is not looked up either.
  const issuer: IssuerCheck =
    hash.version === 2 && certificate.issuerDomain !== undefined
      ? {
          ...issuerCheck,
          identity:
            issuerCheck.outcome === 'trusted' && ESTABLISHED.includes(verdict)
              ? await checkIssuerIdentity({
                  domain: certificate.issuerDomain,
                  origin: issuerCheck.origin,
                  account: certificate.issuer,
                  resolveTxt: input.resolveTxt,
                })
              : notLookedUp(certificate.issuerDomain, issuerCheck, verdict),
        }
      : issuerCheck;
  const revocation = revocationOf(trustpoints, status);
  return {
    certID: certificate.certID,
    verified: verdict === 'verified',
    revoked: revocation !== undefined,
    ...(revocation === undefined ? {} : { revocation }),
    verdict,
    status,
    ...(expiry === undefined ? {} : { expiry }),
    hash,
    issuer,
    trustpoints,
  };
}
