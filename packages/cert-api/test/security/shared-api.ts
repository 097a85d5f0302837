import { startOidcIssuerDouble, type OidcIssuerDouble } from '@trustpoint/test-doubles/oidc-issuer';
import { parseOidcIssuers } from '@trustpoint/identity';

import { startCertApi, type CertApiFixture } from '../support/cert-api-fixture.js';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';

/** The audience the API expects of the OpenID Connect issuer's tokens. */
export const OIDC_AUDIENCE = 'https://api.trustpoint.test';
/** The service's public origin, which issuer domains' DNS records name. */
export const SERVICE_ORIGIN = 'https://certs.example.org';
/** The stand-in for a public site: the one non-public address URL certificates may fetch here. */
export const SITE_ADDRESS = '127.0.0.3';

/** One certificate API for all the security suites of a backend (its start is most of their cost). */
export interface SecurityApi {
  api: CertApiFixture;
  oidc: OidcIssuerDouble;
  /** The DNS server the service asks for issuer domains' records (empty zone: none published). */
  dns: LocalDns;
}

export async function startSecurityApi(backend: 'pglite' | 'postgres'): Promise<SecurityApi> {
  const oidc = await startOidcIssuerDouble();
  const dns = await startLocalDns();
  const api = await startCertApi(backend, {
    publicOrigin: SERVICE_ORIGIN,
    dnsServers: [dns.server],
    oidcIssuers: parseOidcIssuers(
      JSON.stringify([{ issuer: oidc.issuer, audience: OIDC_AUDIENCE }]),
    ),
    urlFetch: { allowAddresses: [SITE_ADDRESS], totalTimeoutMs: 3_000 },
  });
  return { api, oidc, dns };
}

export async function stopSecurityApi(shared: SecurityApi): Promise<void> {
  await shared.api.close();
  await shared.oidc.close();
  await shared.dns.close();
}
