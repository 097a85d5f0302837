import { normalizeOrigin } from '../trust/trust-document.js';

/**
 * The DNS TXT record by which the holder of a domain says that an account of a Trustpoint service
 * issues in its name, as OpenAttestation's DNS-TXT proof ties a document store to a domain:
 *
 * ```
 * _trustpoint.university.example.  TXT  "trustpoint-issuer v=1 origin=https://certs.example.org account=did:user:abc"
 * ```
 *
 * Only who controls the domain's DNS can publish it. A certificate issued by that account at that
 * origin names the domain (`data.issuerDomain`, covered by the version 2 hash), and a verifier
 * reads the record itself: the domain is shown as the issuer's proven identity only when the
 * record names this origin and this account.
 */
export const ISSUER_DOMAIN_RECORD_LABEL = '_trustpoint';
export const ISSUER_DOMAIN_RECORD_TAG = 'trustpoint-issuer';
export const ISSUER_DOMAIN_RECORD_VERSION = '1';

export interface IssuerDomainRecord {
  /** The service origin, normalised (`normalizeOrigin`). */
  origin: string;
  /** The issuing account, `did:user:...`. */
  account: string;
}

/** Where the record of a domain is published: `_trustpoint.<domain>`. */
export function issuerDomainRecordName(domain: string): string {
  return `${ISSUER_DOMAIN_RECORD_LABEL}.${domain}`;
}

/** The text of the record to publish for an account of an origin. */
export function issuerDomainRecordValue(record: IssuerDomainRecord): string {
  return `${ISSUER_DOMAIN_RECORD_TAG} v=${ISSUER_DOMAIN_RECORD_VERSION} origin=${record.origin} account=${record.account}`;
}

/**
 * Reads one TXT record's text (its strings joined): the origin and account it names, or undefined
 * when it is not a Trustpoint issuer record of this version (other TXT records may share the name).
 */
export function parseIssuerDomainRecord(text: string): IssuerDomainRecord | undefined {
  const [tag, ...pairs] = text.trim().split(/\s+/);
  if (tag !== ISSUER_DOMAIN_RECORD_TAG) return undefined;
  const values = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) return undefined;
    const key = pair.slice(0, at);
    if (values.has(key)) return undefined;
    values.set(key, pair.slice(at + 1));
  }
  if (values.get('v') !== ISSUER_DOMAIN_RECORD_VERSION) return undefined;
  const origin = normalizeOrigin(values.get('origin') ?? '');
  const account = values.get('account');
  if (origin === undefined || account === undefined || !account.startsWith('did:user:')) {
    return undefined;
  }
  return { origin, account };
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain as people type it (`University.Example`, `universität.example`, with a trailing dot)
 * in the form records and certificates use: lowercase, punycode, no trailing dot. Undefined when
 * it is not a DNS name with at least two labels (an IP address, a single label, a URL).
 */
export function normalizeIssuerDomain(given: string): string | undefined {
  const text = given.trim().replace(/\.$/, '');
  if (text === '' || /[/:@?#\s]/.test(text)) return undefined;
  let host: string;
  try {
    host = new URL(`https://${text}`).hostname;
  } catch {
    return undefined;
  }
  if (host.length > 253 || /^[0-9.]+$/.test(host) || host.startsWith('[')) return undefined;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  return host;
}
