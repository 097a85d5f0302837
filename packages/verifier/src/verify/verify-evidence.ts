import { decodeGetEvidenceResponse, getEvidenceRequest } from '../chain/evidence-lookup.js';
import type { JsonObject } from '../hashing/canonical-json.js';
import { isHashHex } from '../hashing/hash-hex.js';
import {
  ASSET_HASH_COVERS,
  ASSET_HASH_VERSION_2,
  versionedAssetHash,
  type AssetHashVersion,
} from '../hashing/asset-hash-v2.js';
import { evidenceHash } from '../hashing/track-hash.js';
import type { JsonRpcOptions, NodeAttempt } from '../rpc/json-rpc-nodes.js';
import type { PublicChain } from '../rpc/public-endpoints.js';
import { evidenceKey } from '../chain/record-key.js';
import type { Trust } from '../trust/trust.js';
import type { EndpointAnswer } from './node-reads.js';
import { lookupContext, lookUpRecord, type LookupContext } from './on-chain-read.js';
import { establishStanding, standingOutcome, type ChainTime } from './record-standing.js';
import {
  assertNestingWithin,
  field,
  isAddress,
  isJsonObject,
  isNetworkId,
  isObject,
  isString,
  isTimestamp,
  isTransactionHash,
  optionalField,
  unwrapEnvelope,
  VerifierInputError,
} from './record-input.js';
import type { RpcUrls } from './rpc-urls.js';

/**
 * Verdict on one evidence: `anchored` (on chain with the hash the rules give, in a trusted
 * repository), `mismatch`, `notFound` (revert `0x09cea733`), `pending`, `untrusted`, `untimed`,
 * `unreachable`, `unexpected` or `disagreement` (as for trustpoints).
 */
export type EvidenceVerdict =
  | 'anchored'
  | 'mismatch'
  | 'notFound'
  | 'pending'
  | 'untrusted'
  | 'untimed'
  | 'unreachable'
  | 'unexpected'
  | 'disagreement';

/**
 * What a verdict proves of the fields a JSON shows, and what it does not. `covered`: recomputed
 * into the hash found on chain, or into the key it was found under. `fromChain`: established by
 * the read itself when the verdict is `anchored`/`verified` (the network and registry it was found
 * in, the transaction that wrote it). `unverified`: everything else shown, claims of whoever handed
 * the JSON over (a service's `status`, a version 1 asset's `trackID` and `owner`, ...).
 */
export interface FieldCoverage {
  covered: string[];
  fromChain: string[];
  unverified: string[];
}

export interface EvidenceVerification {
  assetHash: string;
  networkId: number;
  timestamp: number;
  smartContract?: string;
  transactionHash?: string;
  /** The evidence hash as the JSON gives it. */
  hash: string;
  /** `doubleHash(JCS({metadata, timestamp, userOwner}))`, when the JSON carries the metadata. */
  recomputedHash?: string;
  /**
   * Who added it, as the JSON names it (`did:user:...`; a partner's on a shared asset): covered by
   * the hash with the metadata (`coverage.covered`), a claim otherwise (`coverage.unverified`).
   */
  userOwner?: string;
  /** The evidence's own fields (an asset's are in `asset.coverage`). */
  coverage: FieldCoverage;
  onChain?: { hash: string };
  node?: string;
  /** Public endpoints (you gave no node for the network): every one whose answer agreed. */
  nodes?: string[];
  /** Public endpoints that disagreed: what each answered. */
  answers?: EndpointAnswer[];
  /** When the chain wrote it: the block of the transaction that wrote this record. */
  chainTime?: ChainTime;
  /** Who the repository is trusted through (`you`, or a service origin), when it is. */
  trustedThrough?: string;
  /** Every source whose pin holds this record (see `TrustpointVerification.vouchedBy`). */
  vouchedBy?: string[];
  attempts: NodeAttempt[];
  verdict: EvidenceVerdict;
  detail: string;
}

/** In precedence: `mismatch`, `notFound`, `unchecked`, `untrusted`, `verified`. */
export type EvidencesVerdict = 'verified' | 'mismatch' | 'notFound' | 'unchecked' | 'untrusted';

/** An asset JSON's assetHash, recomputed by the rule its `hashVersion` names. */
export interface AssetHashCheck {
  assetId: string;
  assetHash: string;
  /** 1 when the asset has no `hashVersion` (`{assetId, data}`), 2 when it says 2. */
  hashVersion: AssetHashVersion;
  recomputed: string;
  matches: boolean;
  /** The asset's own fields (`transactions` and `assetHash` aside). */
  coverage: FieldCoverage;
}

export interface EvidencesVerification {
  /** Asset JSON only: its assetHash recomputed by its version's rule. */
  asset?: AssetHashCheck;
  verified: boolean;
  verdict: EvidencesVerdict;
  evidences: EvidenceVerification[];
}

export interface VerifyEvidenceInput extends JsonRpcOptions {
  /**
   * An asset as the tracking API returns it (every transaction is checked), one evidence with its
   * `assetHash` and `networkId` (a transaction plus those two, or an item of `GET /evidences/{hash}`),
   * or the whole `GET /evidences/{hash}` answer.
   */
  evidence: unknown;
  rpc: RpcUrls;
  /** Public endpoints of well-known chains, for a network `rpc` names no node for (as for certificates). */
  publicEndpoints?: readonly PublicChain[];
  /** The networks and repositories you trust; a record in any other is at best `untrusted`. */
  trust?: Trust;
}

interface EvidenceInput {
  /** The names of the members the JSON shows for this evidence. */
  shown: string[];
  /** Whether `assetHash` was the evidence's own (not recomputed from its asset). */
  ownAssetHash: boolean;
  /**
   * Whether the `networkId` the evidence shows (if any) is the one read: its own, or its asset's
   * when it is an asset's transaction (another number beside it is a claim, never read).
   */
  networkIdRead: boolean;
  assetHash: string;
  networkId: number;
  timestamp: number;
  userOwner: string | undefined;
  metadata: JsonObject | undefined;
  hash: string;
  smartContract: string | undefined;
  transactionHash: string | undefined;
}

const isHash = (value: unknown): value is string => isString(value) && isHashHex(value);

/** What an evidence read alone names of its asset: the key's assetHash and the chain. */
const ASSET_MEMBERS = ['assetHash', 'networkId'] as const;

function readEvidence(
  item: Record<string, unknown>,
  path: string,
  asset?: { assetHash: string; networkId: number },
): EvidenceInput {
  // The hash covers the metadata with its owner: metadata shown without the owner it was hashed
  // with cannot be recomputed, and would be shown beside a verdict that never checked it. (An
  // owner without metadata, as GET /evidences/{hash} answers, is listed as a claim.)
  if (item.metadata !== undefined && item.userOwner === undefined) {
    throw new VerifierInputError(
      `${path} shows metadata without userOwner: the evidence hash covers the metadata with its owner, so it cannot be checked (give both, as the API answers them)`,
    );
  }
  // An evidence alone must name its asset; the answer of POST /assets/{trackID}/transactions
  // does not, and "must be 64 lowercase hex characters" would send its reader looking for a typo.
  const missing = ASSET_MEMBERS.filter((name) => asset === undefined && item[name] === undefined);
  if (missing.length > 0) {
    throw new VerifierInputError(
      `${path} has no ${missing.join(' nor ')}: an evidence alone does not say which asset it is of (as the answer of POST /assets/{trackID}/transactions); verify its asset instead, by its trackID or its JSON (GET /assets/{trackID}), or the answer of GET /evidences/{hash}`,
    );
  }
  return {
    shown: Object.keys(item).filter((name) => item[name] !== undefined && item[name] !== null),
    ownAssetHash: asset === undefined,
    networkIdRead:
      asset === undefined ||
      item.networkId === undefined ||
      (isNetworkId(item.networkId) && String(item.networkId) === String(asset.networkId)),
    assetHash:
      asset?.assetHash ?? field(item, 'assetHash', isHash, '64 lowercase hex characters', path),
    networkId:
      asset?.networkId ?? Number(field(item, 'networkId', isNetworkId, 'a network id', path)),
    timestamp: field(item, 'timestamp', isTimestamp, 'an integer, 0 or more (seconds)', path),
    userOwner: optionalField(item, 'userOwner', isString, 'a string', path),
    metadata: optionalField(item, 'metadata', isJsonObject, 'an object', path),
    hash: field(item, 'hash', isHash, '64 lowercase hex characters', path),
    // `null` before anchoring in the verification answers.
    smartContract:
      item.smartContract === null
        ? undefined
        : optionalField(item, 'smartContract', isAddress, 'an address', path),
    transactionHash:
      item.transactionHash === null
        ? undefined
        : optionalField(
            item,
            'transactionHash',
            isTransactionHash,
            'a transaction hash (0x and 64 hex digits)',
            path,
          ),
  };
}

/**
 * Evidences one JSON may list: an asset's whole history as the API answers it (one a second at
 * most), read EVIDENCE_READS_AT_ONCE at a time. A longer listing is refused before any node is asked.
 */
export const MAX_LISTED_EVIDENCES = 10_000;
const EVIDENCE_READS_AT_ONCE = 16;

function checkedListing(items: unknown[], path: string): void {
  if (items.length > MAX_LISTED_EVIDENCES) {
    throw new VerifierInputError(
      `${path} lists ${String(items.length)} evidences; one JSON lists at most ${String(MAX_LISTED_EVIDENCES)}`,
    );
  }
}

/**
 * The evidences of a listing, refused when one is listed twice: it would be counted twice, and
 * each (assetHash, timestamp) is one record.
 */
function onceEach(evidences: EvidenceInput[], path: string): EvidenceInput[] {
  const seen = new Set<string>();
  evidences.forEach((evidence, index) => {
    const key = `${evidence.assetHash}@${String(evidence.timestamp)}`;
    if (seen.has(key)) {
      throw new VerifierInputError(
        `${path}[${String(index)}] lists the evidence at timestamp ${String(evidence.timestamp)} again: each evidence is listed once`,
      );
    }
    seen.add(key);
  });
  return evidences;
}

function readEvidences(json: unknown): {
  asset?: EvidencesVerification['asset'];
  evidences: EvidenceInput[];
} {
  const value = unwrapEnvelope(json);
  if (!isObject(value)) throw new VerifierInputError('An evidence or asset is a JSON object');
  assertNestingWithin(value, 'asset or evidence');
  if (Array.isArray(value.transactions)) {
    checkedListing(value.transactions, '$.transactions');
    const asset = readAsset(value);
    const { assetHash, recomputed, networkId } = asset;
    return {
      asset: {
        assetId: asset.assetId,
        assetHash,
        hashVersion: asset.hashVersion,
        recomputed,
        matches: recomputed === assetHash,
        coverage: asset.coverage,
      },
      evidences: onceEach(
        value.transactions.map((item: unknown, index) => {
          const path = `$.transactions[${index}]`;
          if (!isObject(item)) throw new VerifierInputError(`${path} must be an object`);
          // The key on chain is the recomputed assetHash: a changed asset must not pass.
          return readEvidence(item, path, { assetHash: recomputed, networkId });
        }),
        '$.transactions',
      ),
    };
  }
  if (Array.isArray(value.evidences)) {
    checkedListing(value.evidences, '$.evidences');
    return {
      evidences: onceEach(
        value.evidences.map((item: unknown, index) => {
          const path = `$.evidences[${index}]`;
          if (!isObject(item)) throw new VerifierInputError(`${path} must be an object`);
          return readEvidence(item, path);
        }),
        '$.evidences',
      ),
    };
  }
  return { evidences: [readEvidence(value, '$')] };
}

/** An asset JSON's members besides its transactions, its hash recomputed by its version. */
function readAsset(value: Record<string, unknown>) {
  const hashVersion = assetHashVersionOf(value.hashVersion);
  const assetId = field(value, 'assetId', isString, 'a string', '$');
  const data = field(value, 'data', isJsonObject, 'an object', '$');
  const assetHash = field(value, 'assetHash', isHash, '64 lowercase hex characters', '$');
  const networkId = Number(field(value, 'networkId', isNetworkId, 'a network id', '$'));
  const recomputed =
    hashVersion === ASSET_HASH_VERSION_2
      ? versionedAssetHash({
          hashVersion,
          trackID: field(value, 'trackID', isString, 'a string (hash version 2 covers it)', '$'),
          owner: field(value, 'owner', isString, 'a string (hash version 2 covers it)', '$'),
          assetId,
          data,
        })
      : versionedAssetHash({ hashVersion, assetId, data });
  const covered = [...ASSET_HASH_COVERS[hashVersion]];
  // The network is where the evidences were read; `assetHash` is what was checked.
  const fromChain = ['networkId'];
  const unverified = Object.keys(value).filter(
    (name) =>
      value[name] !== undefined &&
      !['assetHash', 'transactions', ...covered, ...fromChain].includes(name),
  );
  return {
    hashVersion,
    assetId,
    assetHash,
    recomputed,
    networkId,
    coverage: { covered, fromChain, unverified },
  };
}

/** `hashVersion` of an asset JSON: absent is 1 (assets made before it existed). */
function assetHashVersionOf(version: unknown): AssetHashVersion {
  if (version === undefined || version === 1) return 1;
  if (version === ASSET_HASH_VERSION_2) return ASSET_HASH_VERSION_2;
  throw new VerifierInputError(
    `$.hashVersion ${JSON.stringify(version)} is unknown to this verifier (it knows 1 and 2)`,
  );
}

/** Which of an evidence's shown members the hash and its key cover, and which the read proves. */
function evidenceCoverage(evidence: EvidenceInput, recomputed: boolean): FieldCoverage {
  const covered = [
    ...(evidence.ownAssetHash ? ['assetHash'] : []),
    'timestamp',
    'hash',
    ...(recomputed ? ['metadata', 'userOwner'] : []),
  ];
  const fromChain = [
    ...(evidence.networkIdRead ? ['networkId'] : []),
    'smartContract',
    'transactionHash',
  ].filter((name) => evidence.shown.includes(name));
  const unverified = evidence.shown.filter(
    (name) => !covered.includes(name) && !fromChain.includes(name),
  );
  return { covered, fromChain, unverified };
}

async function verifyOne(
  evidence: EvidenceInput,
  context: LookupContext,
): Promise<EvidenceVerification> {
  const recomputedHash =
    evidence.metadata === undefined || evidence.userOwner === undefined
      ? undefined
      : evidenceHash({
          metadata: evidence.metadata,
          timestamp: evidence.timestamp,
          userOwner: evidence.userOwner,
        });
  const expectedHash = recomputedHash ?? evidence.hash;
  const base = {
    assetHash: evidence.assetHash,
    networkId: evidence.networkId,
    timestamp: evidence.timestamp,
    ...(evidence.smartContract === undefined ? {} : { smartContract: evidence.smartContract }),
    ...(evidence.transactionHash === undefined
      ? {}
      : { transactionHash: evidence.transactionHash }),
    hash: evidence.hash,
    ...(recomputedHash === undefined ? {} : { recomputedHash }),
    ...(evidence.userOwner === undefined ? {} : { userOwner: evidence.userOwner }),
    coverage: evidenceCoverage(evidence, recomputedHash !== undefined),
  };
  const done = (
    verdict: EvidenceVerdict,
    detail: string,
    more: Partial<EvidenceVerification> = {},
  ): EvidenceVerification => ({ ...base, attempts: [], ...more, verdict, detail });

  const read = await lookUpRecord(
    {
      networkId: evidence.networkId,
      smartContract: evidence.smartContract,
      registryKind: 'evidenceRepository',
      holder: 'evidence',
      contract: 'repository',
      key: `(assetHash, ${String(evidence.timestamp)})`,
    },
    (smartContract) =>
      getEvidenceRequest({
        smartContract,
        assetHash: evidence.assetHash,
        timestampSeconds: evidence.timestamp,
      }),
    decodeGetEvidenceResponse,
    context,
  );
  if (read.outcome !== 'found') return done(read.outcome, read.detail, read.more);
  const { answered } = read;
  let found: Partial<EvidenceVerification> = { ...answered, onChain: { hash: read.value.hash } };
  if (read.value.hash !== expectedHash) {
    return done('mismatch', 'the chain holds another hash than the rules give', found);
  }
  if (evidence.hash !== expectedHash) {
    return done('mismatch', "the evidence's hash contradicts its metadata", found);
  }
  const standing = await establishStanding(
    {
      kind: 'evidence',
      registry: evidence.smartContract ?? '',
      key: evidenceKey(evidence.assetHash, evidence.timestamp),
      hash: expectedHash,
      type: 0,
    },
    evidence.transactionHash,
    read.registryTrust,
    read.checkedNodes,
    context,
  );
  const outcome = standingOutcome(standing);
  found = { ...found, ...outcome.more };
  if (outcome.verdict !== undefined) return done(outcome.verdict, outcome.detail, found);
  return done(
    'anchored',
    recomputedHash === undefined
      ? 'on chain with the given hash (no metadata given to recompute it)'
      : 'on chain with the hash recomputed from its metadata',
    found,
  );
}

/**
 * Verifies asset evidences without trusting the service: recomputes the assetHash and each
 * evidence hash by the published rules when the JSON carries what they cover, and reads each one
 * with a raw `eth_call` (`getEvidence`) from the trusted nodes only.
 */
export async function verifyEvidence(input: VerifyEvidenceInput): Promise<EvidencesVerification> {
  const { asset, evidences: items } = readEvidences(input.evidence);
  const context = lookupContext(input);
  const evidences: EvidenceVerification[] = new Array<EvidenceVerification>(items.length);
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      evidences[index] = await verifyOne(items[index] as EvidenceInput, context);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(EVIDENCE_READS_AT_ONCE, items.length) }, () => reader()),
  );
  const has = (...verdicts: EvidenceVerdict[]) =>
    evidences.some((evidence) => verdicts.includes(evidence.verdict));
  const verdict: EvidencesVerdict =
    asset?.matches === false || has('mismatch')
      ? 'mismatch'
      : evidences.length === 0 || has('notFound', 'pending')
        ? 'notFound'
        : has('unreachable', 'unexpected', 'untimed', 'disagreement')
          ? 'unchecked'
          : has('untrusted')
            ? 'untrusted'
            : 'verified';
  return {
    ...(asset === undefined ? {} : { asset }),
    verified: verdict === 'verified',
    verdict,
    evidences,
  };
}
