import {
  isFetchableNamedOrigin,
  issuerCheckApplies,
  issuerClaimNote,
  type CertificateVerdict,
  type IssuerCheck,
} from '@trustpoint/verifier';
import { element } from './dom.js';
import type { TrustHelp } from './how-to-trust.js';

/**
 * "Issued by": the origin the certificate names (lowercase, punycode) and its account, shown
 * first, in its own colour when you do not trust that origin, with how to trust it. The operator
 * of a registry is not the issuer of every record in it.
 */
export function renderIssuer(
  box: HTMLElement,
  issuer: IssuerCheck,
  help: TrustHelp,
  of: { verdict: CertificateVerdict; hashVersion: 1 | 2 },
): void {
  // No record of this copy holds: whom it names proves nothing, and no advice would help.
  const applies = issuerCheckApplies(issuer, of.verdict);
  box.dataset.issuer = issuer.outcome;
  const children: (Node | string)[] = [];
  const head = element('p', 'Issued by ', 'issuer-head');
  if (issuer.origin !== undefined) {
    head.append(element('strong', issuer.origin, 'mono issuer-origin'));
  } else {
    head.append(element('strong', issuer.given ?? 'no origin named', 'mono issuer-origin'));
  }
  children.push(head);
  const account = element('p', 'Account ', 'help');
  account.append(element('span', issuer.account, 'mono'));
  account.append(issuerClaimNote(issuer.covered, of.hashVersion));
  if (issuer.given !== undefined && issuer.origin !== undefined) {
    account.append(', origin written ', element('span', issuer.given, 'mono'));
  }
  children.push(account);
  children.push(element('p', applies ? statusText(issuer) : notApplying(issuer), 'issuer-status'));
  children.push(identityLine(issuer));
  if (issuer.registry !== undefined) {
    const source = issuer.registry.document === 'published' ? 'Its document, read now: ' : '';
    children.push(element('p', `${source}${issuer.registry.detail}`, 'help'));
  }
  if (applies && issuer.outcome === 'untrusted' && issuer.origin !== undefined) {
    children.push(howToTrust(issuer.origin, issuer.originTrusted === true, help));
  }
  box.replaceChildren(...children);
  box.hidden = false;
}

/**
 * The identity the certificate claims for its issuer (a domain), as its DNS record says: proven
 * only when the record names this origin and this account; otherwise a claim, and so are the
 * names the certificate shows.
 */
function identityLine(issuer: IssuerCheck): HTMLElement {
  const { identity } = issuer;
  const line = element('p', undefined, 'issuer-identity');
  line.dataset.identity = identity?.outcome ?? 'none';
  if (identity === undefined) {
    line.append(
      "No proven identity: the certificate names no domain, so its name and description are the issuer's claims.",
    );
    return line;
  }
  if (identity.outcome === 'proven') {
    line.append('Proven identity ', element('strong', identity.domain, 'mono'));
    line.append(`: its DNS record ${identity.recordName} names this service and this account.`);
    return line;
  }
  line.append(
    'Claims to be ',
    element('strong', identity.domain, 'mono'),
    identity.outcome === 'unchecked' ? ', not checked: ' : ', not proven: ',
    identity.detail,
  );
  return line;
}

/** What the issuer box says when no record of the copy holds (see the verdict). */
function notApplying(issuer: IssuerCheck): string {
  if (issuer.origin === undefined) return statusText(issuer);
  const whom =
    issuer.originTrusted === true ? 'a service you trust' : `you do not trust ${issuer.origin}`;
  return `Named: ${whom}; but no record of this copy holds (see the verdict), so it proves nothing about who issued it.`;
}

function statusText(issuer: IssuerCheck): string {
  switch (issuer.outcome) {
    case 'noOrigin':
      return 'The certificate names no issuing origin: only its registry is checked.';
    case 'trusted':
      return 'A service you trust, and the certificate is recorded in a registry it publishes.';
    case 'untrusted':
      if (issuer.origin === undefined) return 'Not an http(s) origin: it cannot be trusted.';
      return issuer.originTrusted === true
        ? `Issuer not trusted: you trust ${issuer.origin}, but it does not vouch for this copy: ${issuer.registry?.detail ?? 'the record is not held under its pin'}.`
        : `Issuer not trusted: you do not trust ${issuer.origin}. The record is valid on chain, but anybody can run a service: trust it only if you know it issues such certificates.`;
  }
}

function howToTrust(origin: string, originTrusted: boolean, help: TrustHelp): HTMLElement {
  const line = element('p', undefined, 'issuer-how');
  if (originTrusted) {
    line.append(
      `If ${origin} moved to a new registry, its document under Trusted services says so: accept it there.`,
    );
    return line;
  }
  if (!isFetchableNamedOrigin(origin)) {
    // Never contacted because a certificate names it: the user types it in if they know it.
    line.append(
      `${origin} is an http, loopback or private address, which this page never contacts because a certificate names it. If it is a service you run or know, add it under Trusted services.`,
    );
    return line;
  }
  const button = element('button', `Trust ${origin} and verify again`, 'secondary trust-issuer');
  button.type = 'button';
  button.addEventListener('click', () => {
    help.trustSource(origin);
  });
  line.append(button);
  return line;
}
