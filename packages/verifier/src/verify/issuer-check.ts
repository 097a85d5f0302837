import type { IssuerIdentity } from '../identity/issuer-identity.js';
import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';
import { fetchPublishedTrustDocument } from '../trust/published-trust-document.js';
import {
  isFetchableNamedOrigin,
  normalizeOrigin,
  type TrustDocument,
} from '../trust/trust-document.js';
import type { Trust } from '../trust/trust.js';

/**
 * Who issued a certificate, as far as a verifier can tell: the issuing account (`data.issuer`) and,
 * when the certificate names one, the service origin it was issued at (`data.issuerOrigin`, which
 * the version 2 hash covers). The operator of a registry is not the issuer of every record in it;
 * a certificate naming an origin is `verified` only when you trust that origin and it publishes
 * the registry the certificate is recorded in.
 */
export interface IssuerCheck {
  /** `data.issuer`: the issuing account, `did:user:...` of its origin. */
  account: string;
  /** The anchored hash covers the account and origin (version 2); version 1 shows them as claims. */
  covered: boolean;
  /**
   * The issuing origin the certificate names, normalised (scheme, lowercase host in punycode,
   * port). Absent when it names none (version 1, or a service without a public origin): then
   * registry trust alone decides the verdict.
   */
  origin?: string;
  /** `data.issuerOrigin` as written, when that is not its normalised form (or no origin at all). */
  given?: string;
  /** Whether the origin is one you trust (`Trust.origins`). */
  originTrusted?: boolean;
  /** Whether the origin's trust document lists the registry of each Evidence. */
  registry?: IssuerRegistryCheck;
  /**
   * `noOrigin`: the certificate names no origin; `trusted`: you trust its origin, which publishes
   * the registry it is recorded in; `untrusted`: otherwise, and the verdict is at best
   * `issuerUntrusted`.
   */
  outcome: 'noOrigin' | 'trusted' | 'untrusted';
  /** One sentence for a person. */
  detail: string;
  /**
   * The domain the certificate names as its issuer's identity (`data.issuerDomain`, version 2),
   * as its DNS record says: shown as the issuer's identity only when `proven`, never a verdict.
   */
  identity?: IssuerIdentity;
}

export interface IssuerRegistryCheck {
  /**
   * `listed`: the document lists the registry of every Evidence (on its network); `notListed`: of
   * one at least, it does not; `notRead`: no document was read (`detail` says why).
   */
  outcome: 'listed' | 'notListed' | 'notRead';
  /** `pinned`: the document you pinned when you trusted the origin; `published`: read now. */
  document?: 'pinned' | 'published';
  detail: string;
}

/** A registry an Evidence of the certificate is recorded in. */
export interface RecordedIn {
  networkId: number;
  smartContract: string;
  /**
   * Every source whose pin holds the record on the chain it was read from (`you`, origins): an
   * origin publishes the registry only if its own pin is one of them, on its own chain.
   */
  vouchedBy: readonly string[];
}

export interface IssuerCheckInput extends JsonRpcOptions {
  account: string;
  /** `data.issuerOrigin` when the hash covers it (version 2); undefined otherwise. */
  issuerOrigin: string | undefined;
  covered: boolean;
  /** The rule of the certificate's hash: why the origin is a claim when not `covered`. */
  hashVersion: 1 | 2;
  recordedIn: readonly RecordedIn[];
  trust: Trust | undefined;
  /** Read the document of an origin you do not trust (https and public names only). */
  readIssuerDocument: boolean;
}

/**
 * Why the account and origin a certificate shows are only claims, when they are (`covered`
 * false): a version 1 hash never covers them; a version 2 copy that does not match its hash
 * proves nothing it shows. Empty when they are covered.
 */
export function issuerClaimNote(covered: boolean, hashVersion: 1 | 2): string {
  if (covered) return '';
  return hashVersion === 1
    ? ' (a claim: the version 1 hash does not cover it)'
    : ' (a claim: this copy does not match its hash)';
}

/**
 * Whether an `untrusted` issuer says anything of this copy: not when no record of it holds (a
 * verdict of `mismatch`, `notFound` or `unchecked`). Then that the origin "does not vouch for it"
 * says nothing more, and neither trusting the origin nor pinning its document again would change
 * the verdict. Any other outcome always applies.
 */
export function issuerCheckApplies(issuer: Pick<IssuerCheck, 'outcome'>, verdict: string): boolean {
  if (issuer.outcome !== 'untrusted') return true;
  return verdict !== 'mismatch' && verdict !== 'notFound' && verdict !== 'unchecked';
}

const registryText = (records: readonly RecordedIn[]) =>
  records.map((record) => `${record.smartContract} on network ${String(record.networkId)}`);

export async function checkIssuer(input: IssuerCheckInput): Promise<IssuerCheck> {
  const { account, covered } = input;
  const claim = issuerClaimNote(covered, input.hashVersion);
  if (input.issuerOrigin === undefined) {
    return {
      account,
      covered,
      outcome: 'noOrigin',
      detail: `issued by the account ${account}${claim}; the certificate names no issuing origin, so the registry alone is checked`,
    };
  }
  const origin = normalizeOrigin(input.issuerOrigin);
  if (origin === undefined) {
    return {
      account,
      covered,
      given: input.issuerOrigin,
      originTrusted: false,
      outcome: 'untrusted',
      detail: `the certificate names ${JSON.stringify(input.issuerOrigin)} as its issuing origin, which is not an http(s) origin: nothing can make it trusted`,
    };
  }
  const base = {
    account,
    covered,
    origin,
    ...(origin === input.issuerOrigin ? {} : { given: input.issuerOrigin }),
  };
  const trusted = isTrustedOrigin(input.trust, origin);
  const records = input.recordedIn;
  if (trusted) {
    if (records.length === 0) {
      // The trustpoints' own verdicts say what each was found to be; here, none of them is in a
      // registry any pin you trust holds.
      const detail =
        'none of its trustpoints is recorded under a pin you trust (a registry it does not publish, another chain of the same id, or one a development account holds)';
      return {
        ...base,
        originTrusted: true,
        registry: { outcome: 'notListed', document: 'pinned', detail },
        outcome: 'untrusted',
        detail: `it names ${origin}, an origin you trust, but ${detail}: nothing vouches that ${origin} issued it`,
      };
    }
    const unlisted = records.filter((record) => !pinnedBy(origin, record));
    const registry: IssuerRegistryCheck =
      unlisted.length === 0
        ? {
            outcome: 'listed',
            document: 'pinned',
            detail: `recorded in a registry that ${origin} publishes`,
          }
        : {
            outcome: 'notListed',
            document: 'pinned',
            detail: `not held under the pin of ${origin}: ${registryText(unlisted).join(', ')} (a registry it does not publish, another chain of the same id, or one a development account holds)`,
          };
    return {
      ...base,
      originTrusted: true,
      registry,
      outcome: unlisted.length === 0 ? 'trusted' : 'untrusted',
      detail:
        unlisted.length === 0
          ? `issued by ${account} of ${origin}, an origin you trust, and recorded in a registry it publishes`
          : `issued by ${account} of ${origin}, an origin you trust, but not recorded under its pin (${registryText(unlisted).join(', ')}: a registry it does not publish, another chain of the same id, or one a development account holds): it may be another service claiming to be ${origin}`,
    };
  }
  const registry = await publishedRegistryCheck(origin, records, input);
  return {
    ...base,
    originTrusted: false,
    registry,
    outcome: 'untrusted',
    detail: `issued by ${account} of ${origin}, which you do not trust${registry.outcome === 'listed' ? `; recorded in a registry that ${origin} publishes (its document, read now)` : ''}`,
  };
}

/** Whether `origin` (normalised) is one you trust as an issuer (`Trust.origins`). */
export function isTrustedOrigin(trust: Trust | undefined, origin: string): boolean {
  return (trust?.origins ?? []).some((known) => normalizeOrigin(known) === origin);
}

/**
 * The issuing origin a version 2 certificate names (normalised), when you trust it: where its
 * signature keys are read from. Undefined for a version 1 copy, whose origin no hash covers.
 */
export function trustedIssuingOrigin(
  certificate: { hashVersion?: unknown; issuerOrigin?: string | undefined },
  trust: Trust | undefined,
): string | undefined {
  if (certificate.hashVersion === undefined || certificate.issuerOrigin === undefined) {
    return undefined;
  }
  const origin = normalizeOrigin(certificate.issuerOrigin);
  return origin !== undefined && isTrustedOrigin(trust, origin) ? origin : undefined;
}

/**
 * Whether the record is held under the origin's own pin: its registry, on the chain the origin
 * pinned (the answering node proved to be on it), within its blocks. A registry of the same address
 * on another chain of the same id (the first deployment of a development account lands at the
 * same address on every dev chain) is not the origin's.
 */
function pinnedBy(origin: string, record: RecordedIn): boolean {
  return record.vouchedBy.includes(origin);
}

/**
 * For an origin you do not trust: what its published document says of the registries, when the
 * caller allows reading it and it may be read at all. An http, loopback or private origin a
 * certificate names is never fetched: a certificate must not make its verifier call into a
 * network of its choosing.
 */
async function publishedRegistryCheck(
  origin: string,
  records: readonly RecordedIn[],
  input: IssuerCheckInput,
): Promise<IssuerRegistryCheck> {
  if (!isFetchableNamedOrigin(origin)) {
    return {
      outcome: 'notRead',
      detail: `not read: an http, loopback or private origin named in a certificate is never fetched`,
    };
  }
  if (!input.readIssuerDocument) {
    return { outcome: 'notRead', detail: 'not read: reading it was not allowed' };
  }
  if (records.length === 0) {
    return { outcome: 'notRead', detail: 'not read: no Evidence names a registry' };
  }
  let document: TrustDocument;
  try {
    document = await fetchPublishedTrustDocument(origin, input);
  } catch (error) {
    return {
      outcome: 'notRead',
      detail: `not read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const unlisted = records.filter(
    (record) =>
      !document.networks.some(
        (network) =>
          network.networkId === String(record.networkId) &&
          network.registries.some(
            (registry) =>
              registry.kind === 'trustPointRegistry' &&
              registry.address.toLowerCase() === record.smartContract.toLowerCase(),
          ),
      ),
  );
  return unlisted.length === 0
    ? {
        outcome: 'listed',
        document: 'published',
        detail: `recorded in a registry that ${origin} (${document.name}) publishes, as its document says now; trust ${origin} to count it`,
      }
    : {
        outcome: 'notListed',
        document: 'published',
        detail: `${origin} (${document.name}) does not publish ${registryText(unlisted).join(', ')}`,
      };
}
