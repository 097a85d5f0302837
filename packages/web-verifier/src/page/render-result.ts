import type {
  CertificateVerdict,
  CertificateVerification,
  ChainTime,
  EvidencesVerdict,
  EvidencesVerification,
  EvidenceVerdict,
  NodeAttempt,
  RevocationStatusCheck,
  TrustpointVerdict,
} from '@trustpoint/verifier';
import { shownTime } from '@trustpoint/verifier';
import type { NetworkInfo } from './certificate-source.js';
import {
  certificateDetailFields,
  claimBadge,
  contentOf,
  renderContent,
} from './certificate-details.js';
import { evidenceSummaryRows } from './evidence-details.js';
import { element } from './dom.js';
import { coverageRows, coverageSentence, isClaim, withheldText } from './hash-coverage.js';
import { renderHowToTrust, type TrustHelp } from './how-to-trust.js';
import { renderIssuer } from './issuer-box.js';
import { renderWithhold, type WithholdParts } from './withhold-copy.js';

const CERTIFICATE_VERDICTS: Record<CertificateVerdict, string> = {
  verified: 'Verified: every trustpoint is on chain, in a registry you trust, and matches',
  untrusted:
    'Not trusted: it matches the chain, but in a registry that no service you trust publishes',
  issuerUntrusted:
    'Issuer not trusted: valid on chain, in a registry you trust, but issued at an origin you do not trust',
  revoked: 'Revoked: the certificate matches the chain, and its issuer revoked it',
  expired: 'Expired: the certificate matches the chain, and its expiry date has passed',
  revocationUnchecked:
    'Revocation not checked: it matches the chain, but whether it was revoked could not be read (no status registry you trust for its network, or none answered)',
  mismatch: 'Mismatch: the file or the certificate does not match the chain',
  notFound: 'Not on chain: a trustpoint was not found (or is not anchored yet)',
  unchecked:
    'Not checked: no node you trust answered for every trustpoint, public endpoints disagreed, the chain could not date one, or the hash covers nothing shown (a version 1 file certificate: choose its file; a version 1 URL certificate, whose hash is of the page bytes alone)',
};

const EVIDENCES_VERDICTS: Record<EvidencesVerdict, string> = {
  verified: 'Verified: every evidence is on chain, in a repository you trust, and matches',
  untrusted:
    'Not trusted: it matches the chain, but in a repository that no service you trust publishes',
  mismatch: 'Mismatch: the evidence or the asset does not match the chain',
  notFound: 'Not on chain: an evidence was not found (or is not anchored yet)',
  unchecked:
    'Not checked: no node you trust answered for every evidence, or public endpoints disagreed',
};

/** A revocation status read from the certID alone, as its table row's verdict. */
type StatusVerdict = 'statusNotRevoked' | 'statusRevoked' | 'statusUnchecked';

const STATUS_VERDICTS: Record<RevocationStatusCheck['outcome'], StatusVerdict> = {
  notRevoked: 'statusNotRevoked',
  revoked: 'statusRevoked',
  unchecked: 'statusUnchecked',
};

const RECORD_VERDICTS: Record<TrustpointVerdict | EvidenceVerdict | StatusVerdict, string> = {
  statusNotRevoked: 'not revoked',
  statusRevoked: 'revoked',
  statusUnchecked: 'revocation not checked',
  anchored: 'anchored, matches',
  revoked: 'revoked',
  signed: 'signed, signature valid',
  signatureInvalid: 'signature invalid',
  signatureUnchecked: 'signed, signature not checked',
  mismatch: 'mismatch',
  notFound: 'not found',
  pending: 'pending',
  untrusted: 'registry not trusted',
  untimed: 'not dated by the chain',
  unreachable: 'node unreachable',
  unexpected: 'unexpected answer',
  disagreement: 'public endpoints disagree',
};

/** One record on chain (a trustpoint or an evidence), as the table shows it. */
interface RecordRow {
  label: string;
  networkId: number;
  smartContract?: string | undefined;
  transactionHash?: string | undefined;
  /** The time the JSON claims (ms). */
  claimed: number;
  chainTime?: ChainTime | undefined;
  trustedThrough?: string | undefined;
  node?: string | undefined;
  /** Public endpoints (no node of the user's for the network): those whose answers agreed. */
  nodes?: string[] | undefined;
  attempts: readonly NodeAttempt[];
  verdict: TrustpointVerdict | EvidenceVerdict | StatusVerdict;
  detail: string;
}

/** Only http(s) explorer URLs become links: the networks list is data, not markup. */
function link(base: string, path: string, text: string): HTMLAnchorElement | undefined {
  let url: URL;
  try {
    url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const anchor = element('a', text);
  anchor.href = url.toString();
  anchor.rel = 'noopener noreferrer';
  anchor.target = '_blank';
  return anchor;
}

function explorerCell(record: RecordRow, network?: NetworkInfo): HTMLElement {
  const cell = element('td');
  const explorer = network?.explorerUrl;
  if (explorer === undefined || explorer === null || explorer === '') {
    cell.textContent = 'no explorer known for this network';
    return cell;
  }
  const links = [
    record.transactionHash === undefined
      ? undefined
      : link(explorer, `tx/${record.transactionHash}`, 'transaction'),
    record.smartContract === undefined
      ? undefined
      : link(explorer, `address/${record.smartContract}#readContract`, 'contract'),
  ].filter((anchor): anchor is HTMLAnchorElement => anchor !== undefined);
  links.forEach((anchor, index) => {
    if (index > 0) cell.append(', ');
    cell.append(anchor);
  });
  return cell;
}

function recordRow(record: RecordRow, networks: readonly NetworkInfo[]): HTMLTableRowElement {
  const network = networks.find((known) => known.networkId === record.networkId);
  const row = element('tr');
  row.dataset.verdict = record.verdict;
  const head = element('th', record.label);
  head.scope = 'row';
  row.append(head);
  const where = element(
    'td',
    network?.name === undefined
      ? `network ${String(record.networkId)}`
      : `${network.name} (${String(record.networkId)})`,
  );
  where.append(
    element('br'),
    'registry ',
    element('span', record.smartContract ?? 'none yet', 'mono registry'),
  );
  row.append(where);
  const time = element('td');
  if (record.chainTime === undefined) {
    if (record.verdict !== 'statusNotRevoked' && record.verdict !== 'statusUnchecked') {
      time.append(element('span', 'not dated by the chain', 'help'));
    }
  } else {
    time.append(element('span', shownTime(record.chainTime.timestamp), 'chain-time'));
    // A status registry answers its record's time, not its block.
    if (Number.isFinite(record.chainTime.blockNumber)) {
      time.append(element('br'), `block ${String(record.chainTime.blockNumber)}`);
    }
    if (record.verdict === 'untrusted') {
      // The receipt of a registry nobody trusts dates only what that contract chose to log.
      time.append(
        element('br'),
        element('span', 'as logged by a registry you do not trust', 'help'),
      );
    }
  }
  if (Number.isFinite(record.claimed)) {
    time.append(element('br'), element('span', `claimed ${shownTime(record.claimed)}`, 'help'));
  }
  row.append(time);
  const verdict = element('td');
  verdict.append(element('span', RECORD_VERDICTS[record.verdict], `badge v-${record.verdict}`));
  row.append(verdict);
  const detail = element('td', record.detail);
  if (record.trustedThrough !== undefined) {
    detail.append(element('br'), `Trusted through ${record.trustedThrough}`);
  }
  if (record.nodes !== undefined) {
    detail.append(
      element('br'),
      element(
        'span',
        `Answered alike by ${record.nodes.join(' and ')} (public endpoints)`,
        'nodes',
      ),
    );
  } else if (record.node !== undefined) {
    detail.append(element('br'), `Answered by ${record.node}`);
  }
  for (const attempt of record.attempts) {
    detail.append(element('br'), `${attempt.url} failed: ${attempt.error}`);
  }
  row.append(detail);
  row.append(explorerCell(record, network));
  return row;
}

interface ResultParts {
  verdict: HTMLElement;
  howToTrust: HTMLElement;
  /** What the anchored hash covers, in one sentence (certificates only). */
  coverage: HTMLElement | null;
  summary: HTMLElement;
  content: HTMLTableElement;
  body: HTMLElement;
  withhold: WithholdParts | undefined;
}

function withholdPartsOf(section: HTMLElement): WithholdParts | undefined {
  const withhold = section.querySelector<HTMLElement>('#withhold');
  const list = section.querySelector<HTMLUListElement>('#withhold-fields');
  const none = section.querySelector<HTMLElement>('#withhold-none');
  const button = section.querySelector<HTMLButtonElement>('#withhold-download');
  const error = section.querySelector<HTMLElement>('#withhold-error');
  if (withhold === null || list === null || none === null || button === null || error === null) {
    return;
  }
  return { section: withhold, list, none, button, error };
}

function partsOf(section: HTMLElement): ResultParts | undefined {
  const verdict = section.querySelector<HTMLElement>('#verdict');
  const howToTrust = section.querySelector<HTMLElement>('#how-to-trust');
  const summary = section.querySelector<HTMLElement>('#summary');
  const content = section.querySelector<HTMLTableElement>('#content');
  const body = section.querySelector<HTMLElement>('#trustpoints tbody');
  if (verdict === null || howToTrust === null || summary === null || content === null) return;
  if (body === null) return;
  const coverage = section.querySelector<HTMLElement>('#coverage');
  return {
    verdict,
    howToTrust,
    coverage,
    summary,
    content,
    body,
    withhold: withholdPartsOf(section),
  };
}

/** A summary row: term, value, and whether the value is a claim the anchored hash does not cover. */
type SummaryRow = readonly [term: string, value: string, claim?: boolean];

function fillSummary(summary: HTMLElement, rows: readonly SummaryRow[]): void {
  summary.replaceChildren(
    ...rows.flatMap(([term, value, claim]) => {
      const definition = element('dd', value);
      if (claim === true) {
        definition.dataset.coverage = 'claim';
        definition.append(' ', claimBadge());
      }
      return [element('dt', term), definition];
    }),
  );
}

export function renderCertificateResult(
  section: HTMLElement,
  result: CertificateVerification,
  certificate: unknown,
  networks: readonly NetworkInfo[],
  help: TrustHelp,
): void {
  const parts = partsOf(section);
  if (parts === undefined) return;
  parts.verdict.dataset.verdict = result.verdict;
  parts.verdict.textContent = CERTIFICATE_VERDICTS[result.verdict];
  const issuerBox = section.querySelector<HTMLElement>('#issuer');
  if (issuerBox !== null) {
    renderIssuer(issuerBox, result.issuer, help, {
      verdict: result.verdict,
      hashVersion: result.hash.version,
    });
  }
  const { hash } = result;
  if (parts.coverage !== null) {
    parts.coverage.dataset.version = String(hash.version);
    parts.coverage.textContent = coverageSentence(hash);
    parts.coverage.hidden = false;
  }
  const rows: SummaryRow[] = [
    ...certificateDetailFields(certificate).map(
      ({ field, term, value }) => [term, value, isClaim(hash, field)] as const,
    ),
    ['certID', result.certID],
    ['Certificate hash', hash.given],
    ['Hash check', hash.detail],
    ...coverageRows(hash),
  ];
  if (result.hash.fileHash !== undefined) {
    rows.push(['File sha256', result.hash.fileHash.recomputed]);
  }
  if (result.revocation !== undefined) {
    rows.push([
      'Revoked',
      `${shownTime(result.revocation.recordedAt)} (chain time, network ${String(result.revocation.networkId)})`,
    ]);
  }
  fillSummary(parts.summary, rows);
  renderContent(parts.content, contentOf(certificate), {
    claims: hash.unverified.includes('content'),
    withheld: hash.withheld.map(withheldText),
    withheldElements: hash.withheld.flatMap((field) =>
      field.kind === 'element' ? [field.path] : [],
    ),
  });
  if (parts.withhold !== undefined) renderWithhold(parts.withhold, certificate, hash);
  const records: RecordRow[] = result.trustpoints.map((trustpoint) => ({
    label: trustpoint.type,
    networkId: trustpoint.networkId,
    smartContract: trustpoint.smartContract,
    transactionHash: trustpoint.transactionHash,
    claimed: trustpoint.timestamp,
    chainTime: trustpoint.chainTime,
    trustedThrough: trustpoint.trustedThrough,
    node: trustpoint.node,
    nodes: trustpoint.nodes,
    attempts: trustpoint.attempts,
    verdict: trustpoint.verdict,
    detail: trustpoint.detail,
  }));
  // Read from the certID alone: a copy saved before its revocation still shows it.
  for (const check of result.status) {
    records.push({
      label: 'Revocation status',
      networkId: check.networkId,
      smartContract: check.statusRegistry,
      claimed: check.revocation?.timestamp ?? Number.NaN,
      chainTime:
        check.revocation === undefined
          ? undefined
          : {
              timestamp: check.revocation.recordedAt,
              blockNumber: Number.NaN,
              blockHash: '',
              node: check.node ?? '',
            },
      trustedThrough: check.trustedThrough,
      node: check.node,
      nodes: check.nodes,
      attempts: check.attempts,
      verdict: STATUS_VERDICTS[check.outcome],
      detail: check.detail,
    });
  }
  parts.body.replaceChildren(...records.map((record) => recordRow(record, networks)));
  renderHowToTrust(parts.howToTrust, records, help);
  section.hidden = false;
}

export function renderEvidenceResult(
  section: HTMLElement,
  result: EvidencesVerification,
  networks: readonly NetworkInfo[],
  help: TrustHelp,
  /** The asset or evidence JSON as given: the values of its covered and uncovered fields. */
  evidence?: unknown,
): void {
  const parts = partsOf(section);
  if (parts === undefined) return;
  parts.verdict.dataset.verdict = result.verdict;
  parts.verdict.textContent = EVIDENCES_VERDICTS[result.verdict];
  fillSummary(parts.summary, evidenceSummaryRows(result, evidence));
  const issuerBox = section.querySelector<HTMLElement>('#issuer');
  if (issuerBox !== null) issuerBox.hidden = true;
  parts.content.hidden = true;
  if (parts.coverage !== null) parts.coverage.hidden = true;
  if (parts.withhold !== undefined) parts.withhold.section.hidden = true;
  const records: RecordRow[] = result.evidences.map((evidence) => ({
    label: 'Evidence',
    networkId: evidence.networkId,
    smartContract: evidence.smartContract,
    transactionHash: evidence.transactionHash,
    claimed: evidence.timestamp * 1000,
    chainTime: evidence.chainTime,
    trustedThrough: evidence.trustedThrough,
    node: evidence.node,
    nodes: evidence.nodes,
    attempts: evidence.attempts,
    verdict: evidence.verdict,
    detail: evidence.detail,
  }));
  parts.body.replaceChildren(...records.map((record) => recordRow(record, networks)));
  renderHowToTrust(parts.howToTrust, records, help);
  section.hidden = false;
}
