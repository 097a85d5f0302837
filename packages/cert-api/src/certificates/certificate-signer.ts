import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import {
  calculateJwkThumbprint,
  CompactSign,
  compactVerify,
  decodeProtectedHeader,
  exportJWK,
  type JWK,
} from 'jose';
import {
  algorithmOf,
  publicSigningKeyOf,
  unescapedPem,
  type PublicSigningKey,
  type SignatureAlgorithm,
  type VerificationKeyInput,
} from './public-signing-key.js';

export type { SignatureAlgorithm, VerificationKeyInput } from './public-signing-key.js';

/**
 * The service's signing key for qualified signatures: compact JWS (RFC 7515) that any JOSE
 * library verifies with the public keys the JWKS endpoint serves. Earlier keys, retired by a key
 * rotation, keep their signatures valid: their public halves stay in the key set and verify.
 */
export interface CertificateSigner {
  readonly algorithm: SignatureAlgorithm;
  /** RFC 7638 thumbprint of the public key; the `kid` of every JWS and of the JWKS entry. */
  readonly kid: string;
  /** The current public key as a JWK with `kid`, `alg` and `use`, never the private part. */
  readonly publicJwk: JWK;
  /** The JWK Set to publish: the current key first, then the retired ones, each once. */
  readonly jwks: { readonly keys: readonly JWK[] };
  /** A compact JWS over `payload` with `{alg, kid}` as its protected header, by the current key. */
  sign(payload: string): Promise<string>;
  /**
   * The payload of a JWS made by the current or a retired key, chosen by the header's `kid` and
   * checked with that key's algorithm only; throws on an unknown `kid` or a bad signature.
   */
  verify(jws: string): Promise<string>;
}

export interface CertificateSignerOptions {
  /**
   * Public keys of earlier signing keys (PEM SPKI, JWK objects or JSON; a private key is reduced
   * to its public half), EC P-256 or Ed25519 only. Their `kid` is always their RFC 7638 thumbprint,
   * as it was in the JWS they signed.
   */
  retired?: readonly VerificationKeyInput[];
}

interface VerificationKey extends PublicSigningKey {
  kid: string;
  jwk: JWK;
}

/** Reads a private key given as PEM (PKCS#8 or SEC1) or as a JWK in JSON. */
function privateKeyOf(key: string | KeyObject): KeyObject {
  if (typeof key !== 'string') return key;
  const text = key.trim();
  if (text.startsWith('{')) {
    return createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
  }
  return createPrivateKey(unescapedPem(text));
}

async function verificationKeyOf({
  publicKey,
  algorithm,
}: PublicSigningKey): Promise<VerificationKey> {
  const bareJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(bareJwk, 'sha256');
  return { publicKey, algorithm, kid, jwk: { ...bareJwk, kid, alg: algorithm, use: 'sig' } };
}

export async function createCertificateSigner(
  key: string | KeyObject,
  options: CertificateSignerOptions = {},
): Promise<CertificateSigner> {
  const privateKey = privateKeyOf(key);
  if (privateKey.type !== 'private') throw new Error('The signing key must be a private key');
  const algorithm = algorithmOf(privateKey);
  if (algorithm === undefined) {
    throw new Error('The signing key must be an EC P-256 (ES256) or Ed25519 (EdDSA) private key');
  }
  const current = await verificationKeyOf({ publicKey: createPublicKey(privateKey), algorithm });
  const { kid } = current;
  // Keyed by kid: the current key first, a retired key equal to it or to another one kept once.
  const keys = new Map<string, VerificationKey>([[kid, current]]);
  for (const retired of options.retired ?? []) {
    const verificationKey = await verificationKeyOf(publicSigningKeyOf(retired));
    if (!keys.has(verificationKey.kid)) keys.set(verificationKey.kid, verificationKey);
  }
  const jwks = Object.freeze({
    keys: Object.freeze([...keys.values()].map((entry) => Object.freeze(entry.jwk))),
  });
  const encoder = new TextEncoder();
  return {
    algorithm,
    kid,
    publicJwk: current.jwk,
    jwks,
    sign: (payload) =>
      new CompactSign(encoder.encode(payload))
        .setProtectedHeader({ alg: algorithm, kid })
        .sign(privateKey),
    async verify(jws) {
      const headerKid = decodeProtectedHeader(jws).kid;
      const verificationKey = headerKid === undefined ? undefined : keys.get(headerKid);
      if (verificationKey === undefined) {
        throw new Error(`the JWS names no key of this service (kid ${String(headerKid)})`);
      }
      const { payload } = await compactVerify(jws, verificationKey.publicKey, {
        algorithms: [verificationKey.algorithm],
      });
      return new TextDecoder().decode(payload);
    },
  };
}

/** A new P-256 private key as PKCS#8 PEM, for deployments that let the service make its own. */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
