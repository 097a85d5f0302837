import { findCreditBalance, type CertificateRecord, type User } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { fetchUrl, UrlFetchError } from '../url-fetch/fetch-url.js';
import { DEFAULT_URL_FETCH_SETTINGS } from '../url-fetch/url-fetch-settings.js';
import type { CertificateServices } from './certificate-services.js';
import { createCertificate, type CreateCertificateOptions } from './create-certificate.js';
import { parseUrlCertificateBody, urlCertificateDraft } from './url-certificate-draft.js';

/**
 * Certifies what a URL answers. The fetch happens before the database transaction, so a URL that
 * cannot be fetched (refused address, timeout, too large, non-2xx) is a 400 on `body.url` that
 * changes nothing and spends no credit. Network, plan and credit are checked before fetching too,
 * so nobody can make the service fetch URLs on a request that would be refused anyway.
 */
export async function createUrlCertificate(
  services: CertificateServices,
  user: User,
  networkId: string,
  body: unknown,
  options: Pick<
    CreateCertificateOptions,
    'qualified' | 'acknowledgement' | 'requestId' | 'idempotency'
  >,
): Promise<CertificateRecord> {
  const parsed = parseUrlCertificateBody(body);
  services.networks.requireForUser(networkId, user.planNetworkIds);
  if (!((await findCreditBalance(services.knex, user.id)) ?? 0)) {
    throw new DomainError('outOfCredits');
  }
  const fetchedAt = services.now();
  let fetched;
  try {
    fetched = await fetchUrl(parsed.url, { ...DEFAULT_URL_FETCH_SETTINGS, ...services.urlFetch });
  } catch (error) {
    if (!(error instanceof UrlFetchError)) throw error;
    throw new DomainError('validation', {
      detail: 'url fetch refused',
      errors: [{ field: 'body.url', error: error.message }],
      cause: error,
    });
  }
  return createCertificate(
    services,
    user,
    urlCertificateDraft(networkId, parsed, fetched, fetchedAt),
    options,
  );
}
