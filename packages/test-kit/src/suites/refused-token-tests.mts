import type { OidcIssuerDouble } from '@trustpoint/test-doubles/oidc-issuer';
import { expect, it } from 'vitest';

import {
  acceptedAuthorization,
  REFUSED_TOKEN_CASES,
  refusedTokenBody,
  type TokenCaseContext,
} from '../security/refused-tokens.js';

/** What the refused-token tests send a request with, once the suite's `beforeAll` ran. */
export interface RefusedTokenWorld {
  context: TokenCaseContext;
  oidc: OidcIssuerDouble;
  /** The audience the API expects of the OpenID Connect issuer's tokens. */
  oidcAudience: string;
  /** A digest of the callers' state in the database, equal when nothing changed. */
  digest: () => Promise<string>;
  /** A request that changes the database when its token is accepted (201), with this Authorization. */
  send: (authorization: string | undefined) => PromiseLike<{ status: number; body: unknown }>;
}

/**
 * The shared cases (`REFUSED_TOKEN_CASES`) against one request of an API, after its two controls:
 * a valid token is accepted and changes the database; a genuine token of the configured OpenID
 * Connect issuer is accepted (the control of the key-confusion cases).
 */
export function refusedTokenTests(world: () => RefusedTokenWorld): void {
  it('when the token is valid, then the request is carried out (the control)', async () => {
    // Arrange
    const { context, digest, send } = world();
    const before = await digest();

    // Act
    const response = await send(await acceptedAuthorization(context));

    // Assert
    expect(response.status).toBe(201);
    expect(await digest()).not.toBe(before);
  });

  it('when a genuine token of the configured OpenID Connect issuer names the user, then it is accepted (the control of the key-confusion cases)', async () => {
    // Act
    const { context, oidc, oidcAudience, send } = world();
    const response = await send(`Bearer ${await oidc.token(oidcAudience, context.userId)}`);

    // Assert
    expect(response.status).toBe(201);
  });

  it.each(REFUSED_TOKEN_CASES)(
    'when the token is $name, then 401 "$message" and nothing changes',
    async (refused) => {
      // Arrange
      const { context, digest, send } = world();
      const authorization = await refused.authorization(context);
      const before = await digest();

      // Act
      const response = await send(authorization);

      // Assert
      expect(response.status).toBe(401);
      expect(response.body).toEqual(refusedTokenBody(refused));
      expect(await digest()).toBe(before);
    },
  );
}
