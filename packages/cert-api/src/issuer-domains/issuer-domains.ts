import {
  claimIssuerDomain,
  IssuerDomainLimitError,
  findIssuerDomain,
  listIssuerDomains,
  recordIssuerDomainCheck,
  releaseIssuerDomain,
  type IssuerDomainRecord,
} from '@trustpoint/db';
import { DomainError, formatUserDid } from '@trustpoint/domain';
import {
  checkIssuerIdentity,
  issuerDomainRecordName,
  issuerDomainRecordValue,
  normalizeIssuerDomain,
  normalizeOrigin,
  type IssuerIdentity,
} from '@trustpoint/verifier';
import type { CertificateServices } from '../certificates/certificate-services.js';

/**
 * A domain a customer claims, with the DNS record that proves it: the TXT record at
 * `_trustpoint.<domain>` naming this service's origin and the customer's account. Once the
 * service found it, the customer's new certificates name the domain (`data.issuerDomain`), and
 * every verifier checks the record again itself.
 */
export interface IssuerDomainView {
  domain: string;
  /** `proven`: the last check found the record; `pending`: not (yet, or any more). */
  status: 'pending' | 'proven';
  record: { name: string; type: 'TXT'; value: string };
  claimedAt: number;
  provenAt: number | null;
  checkedAt: number | null;
  checkDetail: string | null;
}

/** The origin records name: the service's own public origin; none means no domain can be proven. */
function originOf(services: CertificateServices): string {
  const given = services.issuerOrigin?.();
  const origin = given === undefined ? undefined : normalizeOrigin(given);
  if (origin === undefined) {
    throw new DomainError('validation', {
      detail: 'this service has no public origin (TRUSTPOINT_PUBLIC_URL) for a DNS record to name',
      errors: [
        { field: 'domain', error: 'This service cannot prove domains: it has no public origin' },
      ],
    });
  }
  return origin;
}

/** A domain as the path or body gives it, in its stored form; a 400 on `field` otherwise. */
export function issuerDomainOf(given: string, field: string): string {
  const domain = normalizeIssuerDomain(given);
  if (domain === undefined) {
    throw new DomainError('validation', {
      errors: [
        {
          field,
          error:
            'Expected a domain name of two labels or more (e.g. university.example), not an address or a URL',
        },
      ],
    });
  }
  return domain;
}

function viewOf(services: CertificateServices, claim: IssuerDomainRecord): IssuerDomainView {
  return {
    domain: claim.domain,
    status: claim.provenAt === null ? 'pending' : 'proven',
    record: {
      name: issuerDomainRecordName(claim.domain),
      type: 'TXT',
      value: issuerDomainRecordValue({
        origin: originOf(services),
        account: formatUserDid(claim.userId),
      }),
    },
    claimedAt: claim.claimedAt,
    provenAt: claim.provenAt,
    checkedAt: claim.checkedAt,
    checkDetail: claim.checkDetail,
  };
}

/** Domains one user may claim at once: an issuer has a few; the list is answered whole. */
export const MAX_ISSUER_DOMAINS = 20;

export async function claimDomain(
  services: CertificateServices,
  userId: string,
  domain: string,
): Promise<{ claim: IssuerDomainView; created: boolean }> {
  originOf(services);
  try {
    const { record, created } = await services.knex.transaction((trx) =>
      claimIssuerDomain(trx, { userId, domain, now: services.now(), max: MAX_ISSUER_DOMAINS }),
    );
    return { claim: viewOf(services, record), created };
  } catch (error) {
    if (!(error instanceof IssuerDomainLimitError)) throw error;
    throw new DomainError('validation', {
      detail: error.message,
      errors: [
        {
          field: 'body.domain',
          error: `A user claims at most ${String(error.max)} domains; withdraw one first`,
        },
      ],
    });
  }
}

export async function listDomains(
  services: CertificateServices,
  userId: string,
): Promise<IssuerDomainView[]> {
  originOf(services);
  return (await listIssuerDomains(services.knex, userId)).map((claim) => viewOf(services, claim));
}

async function claimOf(
  services: CertificateServices,
  userId: string,
  domain: string,
): Promise<IssuerDomainRecord> {
  const claim = await findIssuerDomain(services.knex, userId, domain);
  if (claim === undefined) throw new DomainError('notFound');
  return claim;
}

export async function showDomain(
  services: CertificateServices,
  userId: string,
  domain: string,
): Promise<IssuerDomainView> {
  return viewOf(services, await claimOf(services, userId, domain));
}

/**
 * Looks the record up in the DNS (the service's resolver, `TRUSTPOINT_DNS_SERVERS`) and records
 * what it found: proven when a record names this origin and the account, pending otherwise (a
 * record removed since unproves the domain for later certificates).
 */
export async function checkDomain(
  services: CertificateServices,
  userId: string,
  domain: string,
): Promise<{ claim: IssuerDomainView; check: IssuerIdentity }> {
  await claimOf(services, userId, domain);
  const check = await checkIssuerIdentity({
    domain,
    origin: originOf(services),
    account: formatUserDid(userId),
    resolveTxt: services.resolveTxt,
  });
  if (check.outcome === 'unchecked') {
    throw new DomainError('networkUnavailable', {
      detail: `the DNS could not be asked: ${check.detail}`,
    });
  }
  const updated = await recordIssuerDomainCheck(services.knex, {
    userId,
    domain,
    proven: check.outcome === 'proven',
    now: services.now(),
    detail: check.detail,
  });
  if (updated === undefined) throw new DomainError('notFound');
  return { claim: viewOf(services, updated), check };
}

export async function releaseDomain(
  services: CertificateServices,
  userId: string,
  domain: string,
): Promise<void> {
  if (!(await releaseIssuerDomain(services.knex, userId, domain))) {
    throw new DomainError('notFound');
  }
}
