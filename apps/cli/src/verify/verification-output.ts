import {
  issuerCheckApplies,
  issuerClaimNote,
  isLoopbackOrigin,
  shownTime,
  type AssetHashCheck,
  type CertificateVerdict,
  type CertificateVerification,
  type EvidencesVerdict,
  type EvidencesVerification,
  type EvidenceVerification,
  type EvidenceVerdict,
  type FieldCoverage,
  type IssuerCheck,
  type NodeAttempt,
  type RevocationStatusCheck,
  type TrustpointVerdict,
} from '@trustpoint/verifier';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { coverageLines } from './certified-fields.js';
import { oneLine, table } from '../output.js';

const TRUSTPOINT_VERDICTS: Record<TrustpointVerdict | EvidenceVerdict, string> = {
  anchored: 'anchored, matches',
  revoked: 'REVOKED',
  signed: 'signed, signature valid',
  signatureInvalid: 'SIGNATURE INVALID',
  signatureUnchecked: 'signature not checked',
  mismatch: 'MISMATCH',
  notFound: 'NOT FOUND',
  pending: 'not anchored yet',
  untrusted: 'NOT TRUSTED',
  untimed: 'time not proven',
  unreachable: 'node unreachable',
  unexpected: 'unexpected node answer',
  disagreement: 'PUBLIC ENDPOINTS DISAGREE',
};

const OVERALL: Record<CertificateVerdict | EvidencesVerdict, string> = {
  verified: 'VERIFIED: every record is on chain and matches',
  revoked: 'REVOKED: it matches the chain, and was revoked',
  mismatch: 'MISMATCH: something differs from the rules or the chain',
  notFound:
    'NOT FOUND: a record is not on the chain asked (the trusted one, through nodes that proved to be on it)',
  unchecked:
    'NOT CHECKED: a node did not answer, public endpoints disagreed, the chain could not date a record, a signature could not be checked, or the hash covers nothing shown (a version 1 file certificate without --file, or a version 1 URL certificate, whose hash is of the page bytes alone)',
  untrusted:
    'NOT TRUSTED: it matches the chain, but in a registry you do not trust (nothing you trust publishes it, or a development account holds it: see the records below; trustpoint trust add <origin>, or --contract)',
  issuerUntrusted:
    'ISSUER NOT TRUSTED: valid on chain in a registry you trust, but issued at an origin you do not trust (see Issued by)',
  expired: 'EXPIRED: it matches the chain and is trusted, but its expiry date has passed',
  revocationUnchecked:
    'REVOCATION NOT CHECKED: it matches the chain and is trusted, but whether it was revoked could not be read (no status registry pinned, or none answered)',
};

const STATUS: Record<RevocationStatusCheck['outcome'], string> = {
  notRevoked: 'not revoked',
  revoked: 'REVOKED',
  unchecked: 'NOT CHECKED',
};

/** The exit code of a verdict (see exit-codes.ts). */
export function exitCodeOfVerdict(verdict: CertificateVerdict | EvidencesVerdict): ExitCode {
  switch (verdict) {
    case 'verified':
      return EXIT.ok;
    case 'revoked':
      return EXIT.revoked;
    case 'mismatch':
      return EXIT.mismatch;
    case 'notFound':
      return EXIT.notOnChain;
    case 'unchecked':
      return EXIT.unchecked;
    case 'untrusted':
      return EXIT.untrusted;
    case 'expired':
      return EXIT.expired;
    case 'revocationUnchecked':
      return EXIT.revocationUnchecked;
    case 'issuerUntrusted':
      return EXIT.issuerUntrusted;
  }
}

/**
 * Who issued the certificate, shown before anything else: the origin it names (lowercase,
 * punycode) with the account, whether you trust it, and how to trust it when you do not.
 */
export function issuerLines(
  issuer: IssuerCheck,
  verdict: CertificateVerdict,
  hashVersion: 1 | 2,
): string[] {
  return [...originLines(issuer, verdict, hashVersion), ...identityLines(issuer)];
}

/**
 * The identity the certificate claims for its issuer (a domain), as its DNS record says: proven
 * only when the record names this origin and this account; otherwise the names it shows are the
 * issuer's claims.
 */
function identityLines(issuer: IssuerCheck): string[] {
  const { identity } = issuer;
  if (identity === undefined) {
    return issuer.origin === undefined
      ? []
      : [
          "  Identity: none proven (the certificate names no domain): its name and description are the issuer's claims",
        ];
  }
  switch (identity.outcome) {
    case 'proven':
      return [`  Identity: ${identity.domain}, PROVEN by its DNS (${identity.detail})`];
    case 'unproven':
      return [`  Identity: ${identity.domain}, NOT PROVEN, a claim (${identity.detail})`];
    case 'unchecked':
      return [`  Identity: ${identity.domain}, NOT CHECKED, a claim (${identity.detail})`];
  }
}

function originLines(
  issuer: IssuerCheck,
  verdict: CertificateVerdict,
  hashVersion: 1 | 2,
): string[] {
  const claim = issuerClaimNote(issuer.covered, hashVersion);
  if (issuer.origin === undefined) {
    return [
      issuer.outcome === 'noOrigin'
        ? `Issued by: account ${issuer.account}${claim}; the certificate names no issuing origin, so the registry alone is checked`
        : `Issued by: account ${issuer.account}, at ${JSON.stringify(issuer.given)}: NOT TRUSTED (not an http(s) origin)`,
    ];
  }
  const written =
    issuer.given === undefined
      ? ''
      : ` (written ${JSON.stringify(issuer.given)} in the certificate)`;
  const head = `Issued by: ${issuer.origin}${written}, account ${issuer.account}`;
  const registry =
    issuer.registry === undefined
      ? []
      : [
          `  Its ${issuer.registry.document === 'pinned' ? 'pinned' : 'published'} document: ${issuer.registry.detail}`,
        ];
  if (issuer.outcome === 'trusted') {
    return [`${head}: an origin you trust`, ...registry];
  }
  if (!issuerCheckApplies(issuer, verdict)) {
    // No record of this copy holds: whom it names proves nothing, and no advice would help.
    return [
      `${head}${claim}: ${issuer.originTrusted === true ? 'an origin you trust' : `you do not trust ${issuer.origin}`}, but no record of this copy holds (see the verdict)`,
    ];
  }
  // A service on this machine (trustpoint start) is trusted with its chain's node: pinned.
  const forOneRun = isLoopbackOrigin(issuer.origin)
    ? ''
    : ` (or --issuer ${issuer.origin} for one run)`;
  return [
    `${head}: ISSUER NOT TRUSTED (${issuer.originTrusted === true ? `${issuer.origin} does not vouch for it: ${issuer.registry?.detail ?? 'the record is not held under its pin'}` : `you do not trust ${issuer.origin}`})`,
    ...registry,
    issuer.originTrusted === true
      ? `  If ${issuer.origin} moved to a new registry, pin its document again: trustpoint trust add ${issuer.origin}`
      : `  If you trust ${issuer.origin} to issue this: trustpoint trust add ${issuer.origin}${forOneRun}`,
  ];
}

/** The chain's time of a record, and whom its registry is trusted through. */
const chainTimeOf = (row: { chainTime?: { timestamp: number; blockNumber: number } }) =>
  row.chainTime === undefined
    ? undefined
    : `${shownTime(row.chainTime.timestamp)} (block ${String(row.chainTime.blockNumber)})`;

/** The node that answered; several (yours or public endpoints): every one whose answer agreed. */
const nodesOf = (row: { node?: string; nodes?: string[] }) =>
  row.nodes === undefined ? row.node : `${row.nodes.join(' + ')} (agreed)`;

/** A failed node in one line: the next one was asked. */
// Each failure once: several pins of a network may name the same node.
const failedNodes = (attempts: readonly NodeAttempt[]) =>
  [...new Set(attempts.map((attempt) => `${attempt.url} failed (${attempt.error})`))].join('; ');

const withAttempts = (detail: string, attempts: readonly NodeAttempt[]) =>
  attempts.length === 0 ? detail : `${detail}; ${failedNodes(attempts)}`;

/**
 * The hash check in one line, with what the certificate names beside it: `data.fileHash` when the
 * file's sha256 is what differs (what `sha256sum` prints, to compare), `data.hash` otherwise.
 */
function hashLine(hash: CertificateVerification['hash']): string {
  const file = hash.fileHash;
  if (hash.matches) {
    return `Hash: ${hash.detail} (data.hash ${hash.given}${file === undefined ? '' : `, data.fileHash ${file.recomputed}`})`;
  }
  const ruleDiffers = hash.recomputed !== undefined && hash.recomputed !== hash.given;
  const named =
    !ruleDiffers && file !== undefined && file.given !== file.recomputed
      ? `data.fileHash ${file.given ?? 'none'}`
      : `data.hash ${hash.given}`;
  return `Hash: ${hash.detail}; the certificate names ${named}`;
}

export function certificateText(
  result: CertificateVerification,
  keys: string | undefined,
  /** The certificate as given: the values of the fields its hash does not cover are shown. */
  certificate?: unknown,
): string {
  // Each line its own: values from the certificate cannot start lines of their own.
  const lines = [
    `Certificate ${result.certID}`,
    `Verdict: ${OVERALL[result.verdict]}${
      result.verdict === 'verified' && result.hash.version === 1
        ? ' (version 1: of the content alone; its name, dates and any expiry are claims, which a copy may change or drop)'
        : ''
    }`,
    ...issuerLines(result.issuer, result.verdict, result.hash.version),
    hashLine(result.hash),
    ...coverageLines(certificate, result.hash),
    ...(result.expiry === undefined
      ? []
      : [
          `Expires: ${shownTime(result.expiry.expires)}${result.expiry.expired ? ' (EXPIRED)' : ''}, judged at ${shownTime(result.expiry.judgedAt)}${result.expiry.chainTime !== undefined && result.expiry.chainTime >= result.expiry.judgedAt ? ' (chain time)' : ''}`,
        ]),
    ...(result.revocation === undefined
      ? []
      : [
          `Revoked: on network ${String(result.revocation.networkId)}, recorded ${shownTime(result.revocation.recordedAt)} (chain time)`,
        ]),
    ...(keys === undefined ? [] : [`Signature keys: ${keys}`]),
  ].map(oneLine);
  const tables = [
    table(result.trustpoints, [
      { title: 'Trustpoint', value: (row) => row.type },
      { title: 'Network', value: (row) => row.networkId },
      { title: 'Timestamp', value: (row) => row.timestamp },
      { title: 'Chain time', value: chainTimeOf },
      { title: 'Registry', value: (row) => row.smartContract },
      { title: 'Trusted through', value: (row) => row.trustedThrough },
      { title: 'Verdict', value: (row) => TRUSTPOINT_VERDICTS[row.verdict] },
      { title: 'Node', value: nodesOf },
      { title: 'Detail', value: (row) => withAttempts(row.detail, row.attempts) },
    ]),
    ...(result.status.length === 0
      ? []
      : [
          table(result.status, [
            { title: 'Revocation status', value: (row) => STATUS[row.outcome] },
            { title: 'Network', value: (row) => row.networkId },
            {
              title: 'Recorded (chain time)',
              value: (row) =>
                row.revocation === undefined ? undefined : shownTime(row.revocation.recordedAt),
            },
            { title: 'Status registry', value: (row) => row.statusRegistry },
            { title: 'Trusted through', value: (row) => row.trustedThrough },
            { title: 'Node', value: nodesOf },
            { title: 'Detail', value: (row) => withAttempts(row.detail, row.attempts) },
          ]),
        ]),
  ];
  return [...lines, ...tables].join('\n');
}

const listed = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

/** What a verdict proves of the fields shown: covered by the hash, read from the chain, or not. */
function coverageText(coverage: FieldCoverage, covering: string): string {
  return [
    `covered by ${covering}: ${listed(coverage.covered)}`,
    ...(coverage.fromChain.length === 0
      ? []
      : [`checked against the chain: ${listed(coverage.fromChain)}`]),
    `NOT covered, claims of whoever gave the JSON (unverified): ${listed(coverage.unverified)}`,
  ].join('; ');
}

function assetLines(asset: AssetHashCheck): string[] {
  const rule = `{${asset.coverage.covered.join(', ')}}`;
  return [
    `Asset ${asset.assetId} (asset hash version ${String(asset.hashVersion)}): assetHash ${asset.matches ? `recomputed from ${rule}` : `is not what ${rule} gives (${asset.recomputed})`}`,
    `  Asset fields: ${coverageText(asset.coverage, 'the assetHash')}`,
  ];
}

/** One line per distinct coverage of the evidences (usually one for all). */
function evidenceCoverageLines(evidences: EvidencesVerification['evidences']): string[] {
  const texts = evidences.map((evidence) =>
    coverageText(evidence.coverage, 'each evidence hash or its key'),
  );
  const distinct = [...new Set(texts)];
  return distinct.map((text) =>
    distinct.length === 1
      ? `  Evidence fields: ${text}`
      : `  Evidence fields (${String(texts.filter((other) => other === text).length)} of ${String(texts.length)}): ${text}`,
  );
}

/** Who added an evidence (a partner, on a shared asset), marked when the hash does not cover it. */
function addedBy(row: EvidenceVerification): string | undefined {
  if (row.userOwner === undefined) return undefined;
  return row.coverage.covered.includes('userOwner') ? row.userOwner : `${row.userOwner} (claim)`;
}

export function evidencesText(result: EvidencesVerification): string {
  const lines = [
    `Verdict: ${OVERALL[result.verdict]}`,
    ...(result.asset === undefined ? [] : assetLines(result.asset)),
    ...evidenceCoverageLines(result.evidences),
    `  Evidences: ${String(result.evidences.length)} listed, each checked; the chain cannot say whether this JSON left others out`,
  ].map(oneLine);
  const tables = [
    table(result.evidences, [
      { title: 'Evidence', value: (row) => row.hash },
      { title: 'Network', value: (row) => row.networkId },
      { title: 'Timestamp', value: (row) => row.timestamp },
      { title: 'Chain time', value: chainTimeOf },
      { title: 'Added by', value: addedBy },
      { title: 'Repository', value: (row) => row.smartContract },
      { title: 'Trusted through', value: (row) => row.trustedThrough },
      { title: 'Verdict', value: (row) => TRUSTPOINT_VERDICTS[row.verdict] },
      { title: 'Node', value: nodesOf },
      { title: 'Detail', value: (row) => withAttempts(row.detail, row.attempts) },
    ]),
  ];
  return [...lines, ...tables].join('\n');
}
