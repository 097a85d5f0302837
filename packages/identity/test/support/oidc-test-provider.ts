import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'machine-client';
const CLIENT_SECRET = 'machine-client-secret-with-some-length';

export interface TokenRequest {
  /** The audience (resource server) the token is for. */
  audience: string;
  alg?: 'RS256' | 'ES256' | 'EdDSA';
  ttlSeconds?: number;
  /** Extra claims in the token, e.g. a user name. */
  claims?: Record<string, string>;
  /** The scopes asked for and granted (the token's `scope`); `api` by default. */
  scope?: string;
}

export interface OidcTestProvider {
  issuer: string;
  /** An access token (JWT) from the provider's token endpoint, client-credentials grant. */
  token(request: TokenRequest): Promise<string>;
  /** New RS256, ES256 and EdDSA keys; the old ones leave the JWKS. */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

async function signingKeys(): Promise<JWK[]> {
  const keys: JWK[] = [];
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({
      ...(await exportJWK(privateKey)),
      alg,
      use: 'sig',
      kid: `${alg}-${crypto.randomUUID()}`,
    });
  }
  return keys;
}

/**
 * A real OpenID Connect provider (oidc-provider) on 127.0.0.1 that issues JWT access tokens by
 * the client-credentials grant, with RS256, ES256 and EdDSA (Ed25519) keys that a test can rotate.
 */
export async function startOidcTestProvider(): Promise<OidcTestProvider> {
  let next: TokenRequest = { audience: '' };
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (provider === undefined) {
      res.statusCode = 503;
      res.end();
      return;
    }
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  const makeProvider = async () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: await signingKeys() },
      features: {
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => next.audience,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: next.scope ?? 'api',
            audience: next.audience,
            accessTokenFormat: 'jwt',
            accessTokenTTL: next.ttlSeconds ?? 300,
            jwt: { sign: { alg: next.alg ?? 'RS256' } },
          }),
        },
      },
      extraTokenClaims: () => next.claims,
    });
  provider = await makeProvider();

  return {
    issuer,
    async token(request) {
      next = request;
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource: request.audience,
          scope: request.scope ?? 'api',
        }).toString(),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || body.access_token === undefined) {
        throw new Error(`token request failed: ${String(response.status)} ${JSON.stringify(body)}`);
      }
      return body.access_token;
    },
    async rotateKeys() {
      provider = await makeProvider();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
