import { randomUUID } from 'node:crypto';
import { findCreditBalance, findUser, listAuditEntries, savePlan } from '@trustpoint/db';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseOidcIssuers, type OidcIssuerInput } from '../src/index.js';
import { authenticationError, BASE, newUser, testApi } from './support/identity-app.js';
import { startOidcTestProvider, type OidcTestProvider } from './support/oidc-test-provider.js';

const AUDIENCE = 'https://api.trustpoint.test';

describe.each(testBackends())('tokens of an external OpenID Connect provider on %s', (backend) => {
  let db: TestDatabase;
  let provider: OidcTestProvider;
  let other: OidcTestProvider;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    provider = await startOidcTestProvider();
    other = await startOidcTestProvider();
  });
  afterAll(async () => {
    await provider.close();
    await other.close();
    await db.close();
  });

  /** An API that trusts `provider` with these settings; each test's users get a prefix of their own. */
  const apiTrusting = (settings: Partial<OidcIssuerInput> = {}) => {
    const prefix = `${randomUUID()}:`;
    const [issuer] = parseOidcIssuers(
      JSON.stringify([
        { issuer: provider.issuer, audience: AUDIENCE, userIdPrefix: prefix, ...settings },
      ]),
    );
    if (issuer === undefined) throw new Error('no issuer');
    const app = testApi(db.knex, { oidcIssuers: [issuer], oidcKeyFetch: { cooldownMs: 0 } });
    return { app, prefix };
  };
  const me = (app: ReturnType<typeof testApi>, token: string) =>
    request(app).get(`${BASE}/me`).set('Authorization', `Bearer ${token}`);

  it('when the token is valid and names a known user, then the caller is that user', async () => {
    // Arrange
    const { app, prefix } = apiTrusting();
    const user = await newUser(db.knex, `${prefix}machine-client`);
    const token = await provider.token({ audience: AUDIENCE });

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: { id: user.id } });
  });

  it('when the user claim is configured, then the user is named by that claim', async () => {
    // Arrange
    const { app, prefix } = apiTrusting({ userClaim: 'preferred_username' });
    await newUser(db.knex, `${prefix}carol`);
    const token = await provider.token({
      audience: AUDIENCE,
      claims: { preferred_username: 'carol' },
    });
    const without = await provider.token({ audience: AUDIENCE });

    // Act
    const response = await me(app, token);
    const missingClaim = await me(app, without);

    // Assert
    expect(response.body).toMatchObject({ data: { id: `${prefix}carol` } });
    expect(missingClaim.body).toEqual(authenticationError('Token is invalid'));
  });

  it("when the token's scope names scopes of this service, then it is narrowed to them (`scp` too); one naming none keeps full access", async () => {
    // Arrange: the key routes need the `keys` scope.
    const { app, prefix } = apiTrusting();
    await newUser(db.knex, `${prefix}machine-client`);
    const keys = (token: string) =>
      request(app).get(`${BASE}/api-keys`).set('Authorization', `Bearer ${token}`);
    const reader = await provider.token({ audience: AUDIENCE, scope: 'api read' });
    const profileOnly = await provider.token({ audience: AUDIENCE, scope: 'api' });
    const readerScp = await provider.token({ audience: AUDIENCE, claims: { scp: 'read' } });

    // Act
    const narrowed = await keys(reader);
    const full = await keys(profileOnly);
    const scp = await keys(readerScp);

    // Assert
    expect(narrowed.status).toBe(403);
    expect(narrowed.body).toMatchObject({
      errors: [
        {
          field: 'scope',
          error: 'This operation requires the scope "keys"; the credential has "read"',
        },
      ],
    });
    expect(full.status).toBe(200);
    expect(scp.status).toBe(403);
  });

  it('when the token is for another audience, then 401 "Token is invalid"', async () => {
    // Arrange
    const { app, prefix } = apiTrusting();
    await newUser(db.knex, `${prefix}machine-client`);
    const token = await provider.token({ audience: 'https://another-api.test' });

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.status).toBe(401);
    expect(response.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when the token comes from an issuer that is not configured, then 401 "Token is invalid"', async () => {
    // Arrange
    const { app, prefix } = apiTrusting();
    await newUser(db.knex, `${prefix}machine-client`);
    const token = await other.token({ audience: AUDIENCE });

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when the token is signed with an algorithm the issuer does not pin, then 401 "Token is invalid"', async () => {
    // Arrange
    const { app, prefix } = apiTrusting({ algorithms: ['RS256'] });
    const pinnedEs = apiTrusting({ algorithms: ['ES256'], userIdPrefix: prefix });
    await newUser(db.knex, `${prefix}machine-client`);
    const token = await provider.token({ audience: AUDIENCE, alg: 'ES256' });

    // Act
    const response = await me(app, token);
    const accepted = await me(pinnedEs.app, token);

    // Assert
    expect(response.body).toEqual(authenticationError('Token is invalid'));
    expect(accepted.status).toBe(200);
  });

  it('when the issuer pins EdDSA, then an Ed25519-signed token is accepted and an RS256 one is not', async () => {
    // Arrange
    const { app, prefix } = apiTrusting({ algorithms: ['EdDSA'] });
    await newUser(db.knex, `${prefix}machine-client`);
    const edDsa = await provider.token({ audience: AUDIENCE, alg: 'EdDSA' });
    const rs256 = await provider.token({ audience: AUDIENCE, alg: 'RS256' });

    // Act
    const accepted = await me(app, edDsa);
    const refused = await me(app, rs256);

    // Assert
    expect(accepted.status).toBe(200);
    expect(refused.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when the token has expired, then 401 "Token is expired"', async () => {
    // Arrange
    const { app, prefix } = apiTrusting();
    await newUser(db.knex, `${prefix}machine-client`);
    const token = await provider.token({ audience: AUDIENCE, ttlSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.body).toEqual(authenticationError('Token is expired'));
  });

  it('when the provider rotates its keys, then new tokens are accepted and tokens of the removed key are not', async () => {
    // Arrange
    const { app, prefix } = apiTrusting({ algorithms: ['RS256', 'ES256'] });
    await newUser(db.knex, `${prefix}machine-client`);
    const old = await provider.token({ audience: AUDIENCE });
    expect((await me(app, old)).status).toBe(200);

    // Act
    await provider.rotateKeys();
    const fresh = await provider.token({ audience: AUDIENCE });
    const withNewKey = await me(app, fresh);
    const withOldKey = await me(app, old);

    // Assert
    expect(withNewKey.status).toBe(200);
    expect(withOldKey.status).toBe(401);
    expect(withOldKey.body).toEqual(authenticationError('Token is invalid'));
  });

  it('when the user is unknown and provisioning is off, then 401 "User credentials are wrong"', async () => {
    // Arrange
    const { app, prefix } = apiTrusting();
    const token = await provider.token({ audience: AUDIENCE });

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.body).toEqual(authenticationError('User credentials are wrong'));
    expect(await findUser(db.knex, `${prefix}machine-client`)).toBeUndefined();
  });

  it('when the user is unknown and provisioning is on, then the user is made with the plan and credits', async () => {
    // Arrange
    const planId = `plan-${randomUUID()}`;
    await savePlan(db.knex, { id: planId, name: 'Starter', networkIds: ['31337'] });
    const { app, prefix } = apiTrusting({ provision: { planId, credits: 25 } });
    const token = await provider.token({ audience: AUDIENCE });

    // Act
    const first = await me(app, token);
    const second = await me(app, token);

    // Assert
    const userId = `${prefix}machine-client`;
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: { id: userId } });
    expect(second.status).toBe(200);
    expect(await findUser(db.knex, userId)).toMatchObject({ planId, qualified: false });
    expect(await findCreditBalance(db.knex, userId)).toBe(25);
    const { entries } = await listAuditEntries(db.knex, {
      target: `user:${userId}`,
      offset: 0,
      limit: 10,
    });
    expect(entries).toEqual([
      expect.objectContaining({
        actorId: null,
        action: 'user.create',
        changes: expect.objectContaining({ planId, credits: 25 }) as unknown,
      }),
    ]);
  });

  it.each([
    ['only dots', '', '..'],
    ['a slash', 'acme:', 'carol/../admin'],
    ['a backslash', 'acme:', 'carol\\admin'],
    ['a percent', 'acme:', 'carol%2Fadmin'],
    ['a space', 'acme:', 'Carol Smith'],
  ])(
    'when provisioning is on and the user claim makes an id an administrator could not create (%s), then 401 "User credentials are wrong" and no user is made',
    async (_case, userIdPrefix, claim) => {
      // Arrange
      const planId = `plan-${randomUUID()}`;
      await savePlan(db.knex, { id: planId, name: 'Starter', networkIds: ['31337'] });
      const { app } = apiTrusting({
        userClaim: 'preferred_username',
        userIdPrefix,
        provision: { planId, credits: 25 },
      });
      const token = await provider.token({
        audience: AUDIENCE,
        claims: { preferred_username: claim },
      });

      // Act
      const response = await me(app, token);

      // Assert
      expect(response.status).toBe(401);
      expect(response.body).toEqual(authenticationError('User credentials are wrong'));
      expect(await findUser(db.knex, `${userIdPrefix}${claim}`)).toBeUndefined();
      const { entries } = await listAuditEntries(db.knex, {
        target: `user:${userIdPrefix}${claim}`,
        offset: 0,
        limit: 10,
      });
      expect(entries).toEqual([]);
    },
  );

  it('when provisioning is on and a user whose id holds a slash exists already (made before the rule), then it still signs in', async () => {
    // Arrange
    const planId = `plan-${randomUUID()}`;
    await savePlan(db.knex, { id: planId, name: 'Starter', networkIds: ['31337'] });
    const { app, prefix } = apiTrusting({
      userClaim: 'preferred_username',
      provision: { planId },
    });
    await newUser(db.knex, `${prefix}team/carol`);
    const token = await provider.token({
      audience: AUDIENCE,
      claims: { preferred_username: 'team/carol' },
    });

    // Act
    const response = await me(app, token);

    // Assert
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: { id: `${prefix}team/carol` } });
  });

  it('when a provisioned user is refused by the user lookup (disabled), then it is not made again', async () => {
    // Arrange
    const planId = `plan-${randomUUID()}`;
    await savePlan(db.knex, { id: planId, name: 'Starter', networkIds: [] });
    const prefix = `${randomUUID()}:`;
    const userId = `${prefix}machine-client`;
    await newUser(db.knex, userId);
    const [issuer] = parseOidcIssuers(
      JSON.stringify([
        {
          issuer: provider.issuer,
          audience: AUDIENCE,
          userIdPrefix: prefix,
          provision: { planId },
        },
      ]),
    );
    const app = testApi(db.knex, {
      oidcIssuers: issuer === undefined ? [] : [issuer],
      disabled: new Set([userId]),
    });

    // Act
    const response = await me(app, await provider.token({ audience: AUDIENCE }));

    // Assert
    expect(response.body).toEqual(authenticationError('User credentials are wrong'));
    expect(await findUser(db.knex, userId)).toMatchObject({ planId: `plan-${userId}` });
  });

  it('when the provider cannot be reached, then 503 "identity provider not available", not a 401 that blames the token', async () => {
    // Arrange: nothing listens on port 1.
    const [issuer] = parseOidcIssuers(
      JSON.stringify([{ issuer: 'http://127.0.0.1:1', audience: AUDIENCE }]),
    );
    const app = testApi(db.knex, { oidcIssuers: issuer === undefined ? [] : [issuer] });
    const token = await provider.token({ audience: AUDIENCE });
    const claimingUnreachable = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ iss: 'http://127.0.0.1:1', sub: 'x', aud: AUDIENCE, exp: 9_999_999_999 }),
    ).toString('base64url')}.${token.split('.')[2] ?? ''}`;

    // Act
    const response = await me(app, claimingUnreachable);

    // Assert
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      statusCode: 503,
      type: 'Service Unavailable Error',
      message: 'The identity provider is not available, please try again later',
    });
  });

  it('when the service’s own tokens and API keys are sent beside a configured provider, then they still work', async () => {
    // Arrange
    const { app } = apiTrusting();
    const alice = await newUser(db.knex);

    // Act
    const response = await me(app, alice.token);
    const notJwt = await me(app, 'not-a-jwt');

    // Assert
    expect(response.status).toBe(200);
    expect(notJwt.body).toEqual(authenticationError('Token is invalid'));
  });
});

describe('parseOidcIssuers', () => {
  it('when nothing is configured, then there are no issuers', () => {
    expect(parseOidcIssuers(undefined)).toEqual([]);
    expect(parseOidcIssuers(' ')).toEqual([]);
  });

  it('when an issuer is given with defaults left out, then they are filled in', () => {
    expect(
      parseOidcIssuers('[{"issuer":"https://id.example.org/realms/acme","audience":"trustpoint"}]'),
    ).toEqual([
      {
        issuer: 'https://id.example.org/realms/acme',
        audience: 'trustpoint',
        userClaim: 'sub',
        userIdPrefix: '',
        algorithms: ['RS256'],
      },
    ]);
  });

  it.each([
    ['not JSON', '[{', /not valid JSON/],
    [
      'an http issuer off localhost',
      '[{"issuer":"http://id.example.org","audience":"a"}]',
      /issuer 1 issuer must be an https URL/,
    ],
    ['no audience', '[{"issuer":"https://id.example.org"}]', /issuer 1 audience/],
    [
      'an algorithm not allowed',
      '[{"issuer":"https://id.example.org","audience":"a","algorithms":["HS256"]}]',
      /issuer 1 algorithms/,
    ],
    [
      'an unknown member',
      '[{"issuer":"https://id.example.org","audience":"a","aud":"b"}]',
      /issuer 1/,
    ],
    [
      'the same issuer twice',
      '[{"issuer":"https://a.example","audience":"a"},{"issuer":"https://a.example","audience":"b"}]',
      /issuer 2 issuer is listed twice/,
    ],
    [
      'a user id prefix with a slash',
      '[{"issuer":"https://a.example","audience":"a","userIdPrefix":"acme/"}]',
      /issuer 1 userIdPrefix must be printable ASCII without spaces, \/, \\ or %/,
    ],
  ])('when the value has %s, then start-up stops with a message', (_case, value, message) => {
    expect(() => parseOidcIssuers(value)).toThrow(message);
  });
});
