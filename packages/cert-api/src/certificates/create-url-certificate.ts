import { findCreditBalance, type CertificateRecord, type User } from '@trustpoint/db';
import { DomainError, type UrlCertificateBody } from '@trustpoint/domain';
import { fetchUrl, UrlFetchError } from '../url-fetch/fetch-url.js';
import { DEFAULT_URL_FETCH_SETTINGS } from '../url-fetch/url-fetch-settings.js';
import type { CertificateServices } from './certificate-services.js';
import { createCertificate, type CreateCertificateOptions } from './create-certificate.js';
import { urlCertificateDraft } from './url-certificate-draft.js';

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
  /** Validated already (`creationRequest`): the URL is fetched only once the body is known good. */
  body: UrlCertificateBody,
  options: Pick<
    CreateCertificateOptions,
    'qualified' | 'acknowledgement' | 'requestId' | 'idempotency'
  >,
): Promise<CertificateRecord> {
  services.networks.requireForUser(networkId, user.planNetworkIds, 'query.networkId');
  if (!((await findCreditBalance(services.knex, user.id)) ?? 0)) {
    throw new DomainError('outOfCredits');
  }
  const fetchedAt = services.now();
  let fetched;
  try {
    fetched = await fetchUrl(body.url, { ...DEFAULT_URL_FETCH_SETTINGS, ...services.urlFetch });
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
    urlCertificateDraft(networkId, body, fetched, fetchedAt),
    options,
  );
}
