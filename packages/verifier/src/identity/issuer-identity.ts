import type { TxtResolver } from './dns-over-https.js';
import {
  issuerDomainRecordName,
  issuerDomainRecordValue,
  normalizeIssuerDomain,
  parseIssuerDomainRecord,
} from './issuer-domain-record.js';

/**
 * The identity a certificate claims for its issuer (`data.issuerDomain`), as the verifier finds it
 * in the DNS itself. Shown information: it does not change the verdict.
 */
export interface IssuerIdentity {
  /** The domain the certificate names (lowercase, punycode). */
  domain: string;
  /** Where its record is looked up: `_trustpoint.<domain>`. */
  recordName: string;
  /**
   * `proven`: a TXT record there names this origin and this account; `unproven`: none does (no
   * record, or records naming another origin or account): the certificate's names are the
   * issuer's claims; `unchecked`: the DNS could not be asked (no resolver, or it failed).
   */
  outcome: 'proven' | 'unproven' | 'unchecked';
  /** The Trustpoint issuer records found there (other TXT records are left out). */
  records?: string[];
  detail: string;
}

export async function checkIssuerIdentity(input: {
  domain: string;
  /** The origin the certificate names, normalised; undefined when it names none. */
  origin: string | undefined;
  account: string;
  resolveTxt: TxtResolver | undefined;
}): Promise<IssuerIdentity> {
  const domain = normalizeIssuerDomain(input.domain) ?? input.domain;
  const recordName = issuerDomainRecordName(domain);
  const base = { domain, recordName };
  if (normalizeIssuerDomain(input.domain) !== input.domain) {
    return {
      ...base,
      outcome: 'unproven',
      detail: `${JSON.stringify(input.domain)} is not a domain in its normal form (lowercase, punycode): a claim`,
    };
  }
  if (input.origin === undefined) {
    return {
      ...base,
      outcome: 'unproven',
      detail: 'the certificate names no issuing origin for a record to name: a claim',
    };
  }
  if (input.resolveTxt === undefined) {
    return {
      ...base,
      outcome: 'unchecked',
      detail: `${recordName} was not looked up (no resolver)`,
    };
  }
  let texts: string[];
  try {
    texts = await input.resolveTxt(recordName);
  } catch (error) {
    return {
      ...base,
      outcome: 'unchecked',
      detail: `${recordName} could not be looked up (${error instanceof Error ? error.message : String(error)}): the domain is a claim until it is`,
    };
  }
  const records = texts.filter((text) => parseIssuerDomainRecord(text) !== undefined);
  const expected = issuerDomainRecordValue({ origin: input.origin, account: input.account });
  const named = records.flatMap((text) => {
    const record = parseIssuerDomainRecord(text);
    return record === undefined ? [] : [record];
  });
  if (named.some((record) => record.origin === input.origin && record.account === input.account)) {
    return {
      ...base,
      outcome: 'proven',
      records,
      detail: `${domain} proves it: ${recordName} names ${input.origin} and the account ${input.account}`,
    };
  }
  const why =
    records.length === 0
      ? `${recordName} has no Trustpoint issuer record`
      : named.some((record) => record.origin === input.origin)
        ? `${recordName} names another account of ${input.origin} (${named
            .filter((record) => record.origin === input.origin)
            .map((record) => record.account)
            .join(', ')}), not ${input.account}`
        : `${recordName} names another origin (${named.map((record) => record.origin).join(', ')}), not ${input.origin}`;
  return {
    ...base,
    outcome: 'unproven',
    records,
    detail: `${why}: ${domain} and the names the certificate shows are the issuer's claims, not proven (the record would read "${expected}")`,
  };
}
