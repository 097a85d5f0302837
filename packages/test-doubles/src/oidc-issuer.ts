import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK } from 'jose';

/**
 * An OpenID Connect issuer on 127.0.0.1 with one RS256 key: its discovery document and key set
 * are served over real HTTP as a provider serves them, so an API configured with it fetches the
 * key exactly as in production. It signs genuine tokens, and hands out its public key in the
 * forms an attacker would copy from the key set (PEM and JWK) for key-confusion attempts.
 */
export interface OidcIssuerDouble {
  issuer: string;
  /** The public key as a PEM (SPKI) text, as `openssl` would print it. */
  publicKeyPem: string;
  /** The public key as it appears in the served key set. */
  publicJwk: JWK;
  /** A genuine RS256 access token of this issuer for `audience`, naming `subject`. */
  token(audience: string, subject: string): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcIssuerDouble(): Promise<OidcIssuerDouble> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), alg: 'RS256', use: 'sig', kid: 'k1' };
  const server = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? { issuer, jwks_uri: `${issuer}/jwks` }
        : req.url === '/jwks'
          ? { keys: [publicJwk] }
          : undefined;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const publicKeyPem = await exportSPKI(publicKey);
  return {
    issuer,
    publicKeyPem,
    publicJwk,
    token: (audience, subject) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
