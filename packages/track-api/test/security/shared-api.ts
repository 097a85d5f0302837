import { startOidcIssuerDouble, type OidcIssuerDouble } from '@trustpoint/test-doubles/oidc-issuer';
import { parseOidcIssuers } from '@trustpoint/identity';

import { startTrackApi, type TrackApiFixture } from '../support/track-api-fixture.js';

/** The audience the API expects of the OpenID Connect issuer's tokens. */
export const OIDC_AUDIENCE = 'https://api.trustpoint.test';

/** One track API for all the security suites of a backend (its start is most of their cost). */
export interface SecurityApi {
  api: TrackApiFixture;
  oidc: OidcIssuerDouble;
}

export async function startSecurityApi(backend: 'pglite' | 'postgres'): Promise<SecurityApi> {
  const oidc = await startOidcIssuerDouble();
  const api = await startTrackApi(backend, {
    oidcIssuers: parseOidcIssuers(
      JSON.stringify([{ issuer: oidc.issuer, audience: OIDC_AUDIENCE }]),
    ),
  });
  return { api, oidc };
}

export async function stopSecurityApi(shared: SecurityApi): Promise<void> {
  await shared.api.close();
  await shared.oidc.close();
}
