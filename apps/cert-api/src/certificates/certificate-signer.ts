import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, CompactSign, compactVerify, exportJWK, type JWK } from 'jose';

/** JWS algorithms the service signs with, chosen by the kind of its key. */
export type SignatureAlgorithm = 'ES256' | 'EdDSA';

/**
 * The service's signing key for qualified signatures: compact JWS (RFC 7515) that any JOSE
 * library verifies with the public key the JWKS endpoint serves.
 */
export interface CertificateSigner {
  readonly algorithm: SignatureAlgorithm;
  /** RFC 7638 thumbprint of the public key; the `kid` of every JWS and of the JWKS entry. */
  readonly kid: string;
  /** The public key as a JWK with `kid`, `alg` and `use`, never the private part. */
  readonly publicJwk: JWK;
  /** A compact JWS over `payload` with `{alg, kid}` as its protected header. */
  sign(payload: string): Promise<string>;
  /** The payload of a JWS this key signed; throws when the signature or `kid` do not match. */
  verify(jws: string): Promise<string>;
}

function algorithmOf(key: KeyObject): SignatureAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return 'ES256';
  }
  throw new Error('The signing key must be an EC P-256 (ES256) or Ed25519 (EdDSA) private key');
}

/** Reads a private key given as PEM (PKCS#8 or SEC1) or as a JWK in JSON. */
function privateKeyOf(key: string | KeyObject): KeyObject {
  if (typeof key !== 'string') return key;
  const text = key.trim();
  if (text.startsWith('{')) {
    return createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
  }
  // A PEM passed through an environment variable often arrives with its newlines escaped.
  return createPrivateKey(text.includes('\\n') ? text.replaceAll('\\n', '\n') : text);
}

export async function createCertificateSigner(key: string | KeyObject): Promise<CertificateSigner> {
  const privateKey = privateKeyOf(key);
  if (privateKey.type !== 'private') throw new Error('The signing key must be a private key');
  const algorithm = algorithmOf(privateKey);
  const publicKey = createPublicKey(privateKey);
  const bareJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(bareJwk, 'sha256');
  const publicJwk: JWK = { ...bareJwk, kid, alg: algorithm, use: 'sig' };
  const encoder = new TextEncoder();
  return {
    algorithm,
    kid,
    publicJwk,
    sign: (payload) =>
      new CompactSign(encoder.encode(payload))
        .setProtectedHeader({ alg: algorithm, kid })
        .sign(privateKey),
    async verify(jws) {
      const { payload, protectedHeader } = await compactVerify(jws, publicKey, {
        algorithms: [algorithm],
      });
      if (protectedHeader.kid !== kid) throw new Error(`the JWS was not made with key ${kid}`);
      return new TextDecoder().decode(payload);
    },
  };
}

/** A new P-256 private key as PKCS#8 PEM, for deployments that let the service make its own. */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}
