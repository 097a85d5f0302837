import type {
  CertificateVerdict,
  CertificateVerification,
  TrustpointVerdict,
  TrustpointVerification,
} from '@trustpoint/verifier';
import type { NetworkInfo } from './certificate-source.js';

const CERTIFICATE_VERDICTS: Record<CertificateVerdict, string> = {
  verified: 'Verified: every trustpoint is on chain and matches',
  revoked: 'Revoked: the certificate matches the chain, and its issuer revoked it',
  mismatch: 'Mismatch: the file or the certificate does not match the chain',
  notFound: 'Not on chain: a trustpoint was not found (or is not anchored yet)',
  unchecked: 'Not checked: no node you listed gave an answer for every trustpoint',
};

const TRUSTPOINT_VERDICTS: Record<TrustpointVerdict, string> = {
  anchored: 'anchored, matches',
  revoked: 'revoked',
  signed: 'signed, signature valid',
  signatureInvalid: 'signature invalid',
  signatureUnchecked: 'signed, signature not checked',
  mismatch: 'mismatch',
  notFound: 'not found',
  pending: 'pending',
  unreachable: 'node unreachable',
  unexpected: 'unexpected answer',
};

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
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

function explorerCell(trustpoint: TrustpointVerification, network?: NetworkInfo): HTMLElement {
  const cell = element('td');
  const explorer = network?.explorerUrl;
  if (explorer === undefined || explorer === null || explorer === '') {
    cell.textContent = 'no explorer known for this network';
    return cell;
  }
  const links = [
    trustpoint.transactionHash === undefined
      ? undefined
      : link(explorer, `tx/${trustpoint.transactionHash}`, 'transaction'),
    trustpoint.smartContract === undefined
      ? undefined
      : link(explorer, `address/${trustpoint.smartContract}#readContract`, 'contract'),
  ].filter((anchor): anchor is HTMLAnchorElement => anchor !== undefined);
  links.forEach((anchor, index) => {
    if (index > 0) cell.append(', ');
    cell.append(anchor);
  });
  return cell;
}

function trustpointRow(trustpoint: TrustpointVerification, networks: readonly NetworkInfo[]) {
  const network = networks.find((known) => known.networkId === trustpoint.networkId);
  const row = element('tr');
  row.dataset.verdict = trustpoint.verdict;
  row.append(element('th', trustpoint.type));
  row.firstElementChild?.setAttribute('scope', 'row');
  row.append(
    element(
      'td',
      network?.name === undefined
        ? String(trustpoint.networkId)
        : `${network.name} (${String(trustpoint.networkId)})`,
    ),
  );
  row.append(element('td', new Date(trustpoint.timestamp).toISOString()));
  const verdict = element('td');
  verdict.append(
    element('span', TRUSTPOINT_VERDICTS[trustpoint.verdict], `badge v-${trustpoint.verdict}`),
  );
  row.append(verdict);
  const detail = element('td', trustpoint.detail);
  if (trustpoint.node !== undefined) {
    detail.append(element('br'), `Answered by ${trustpoint.node}`);
  }
  for (const attempt of trustpoint.attempts) {
    detail.append(element('br'), `${attempt.url} failed: ${attempt.error}`);
  }
  row.append(detail);
  row.append(explorerCell(trustpoint, network));
  return row;
}

export function renderResult(
  section: HTMLElement,
  result: CertificateVerification,
  networks: readonly NetworkInfo[],
): void {
  const verdict = section.querySelector<HTMLElement>('#verdict');
  const summary = section.querySelector<HTMLElement>('#summary');
  const body = section.querySelector<HTMLElement>('#trustpoints tbody');
  if (verdict === null || summary === null || body === null) return;
  verdict.dataset.verdict = result.verdict;
  verdict.textContent = CERTIFICATE_VERDICTS[result.verdict];
  const rows: [string, string][] = [
    ['certID', result.certID],
    ['Certificate hash', result.hash.given],
    ['Hash check', result.hash.detail],
  ];
  if (result.hash.fileHash !== undefined) {
    rows.push(['File sha256', result.hash.fileHash.recomputed]);
  }
  summary.replaceChildren(
    ...rows.flatMap(([term, value]) => [element('dt', term), element('dd', value, 'mono')]),
  );
  body.replaceChildren(...result.trustpoints.map((item) => trustpointRow(item, networks)));
  section.hidden = false;
}
