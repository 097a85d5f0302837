import { createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import type { JWK } from 'jose';

/** JWS algorithms the service signs with, chosen by the kind of its key. */
export type SignatureAlgorithm = 'ES256' | 'EdDSA';

/**
 * A key whose signatures the service still accepts: PEM (SPKI, or a private key of which only the
 * public half is kept), a JWK object, a JWK in JSON, or a KeyObject.
 */
export type VerificationKeyInput = string | KeyObject | JWK;

export interface PublicSigningKey {
  publicKey: KeyObject;
  algorithm: SignatureAlgorithm;
}

/** The algorithm of an EC P-256 or Ed25519 key; undefined for any other key. */
export function algorithmOf(key: KeyObject): SignatureAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return 'ES256';
  }
  return undefined;
}

/** PEM from an environment variable often arrives with its newlines escaped. */
export function unescapedPem(text: string): string {
  return text.includes('\\n') ? text.replaceAll('\\n', '\n') : text;
}

/** The key as a JWK when it was given as one (an object or JSON text), otherwise undefined. */
function jwkOf(key: VerificationKeyInput): JWK | undefined {
  if (key instanceof KeyObject) return undefined;
  if (typeof key !== 'string') return key;
  return key.trim().startsWith('{') ? (JSON.parse(key) as JWK) : undefined;
}

/** Its public half: a private key given here is reduced, so that its private part is never kept. */
function publicKeyObjectOf(key: VerificationKeyInput, jwk: JWK | undefined): KeyObject {
  if (jwk !== undefined) return createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  if (!(key instanceof KeyObject)) return createPublicKey(unescapedPem((key as string).trim()));
  if (key.type === 'secret') throw new Error('A verification key must be an asymmetric key');
  return key.type === 'public' ? key : createPublicKey(key);
}

/** The public half of a key whose signatures the service verifies, with its algorithm. */
export function publicSigningKeyOf(key: VerificationKeyInput): PublicSigningKey {
  const jwk = jwkOf(key);
  const publicKey = publicKeyObjectOf(key, jwk);
  const algorithm = algorithmOf(publicKey);
  if (algorithm === undefined) {
    throw new Error('A verification key must be an EC P-256 (ES256) or Ed25519 (EdDSA) key');
  }
  // A key published for another purpose must not be taken for a signing key.
  if (jwk?.alg !== undefined && jwk.alg !== algorithm) {
    throw new Error(`A verification key names alg "${jwk.alg}" but is an ${algorithm} key`);
  }
  if (jwk?.use !== undefined && jwk.use !== 'sig') {
    throw new Error(`A verification key is for use "${jwk.use}", not "sig"`);
  }
  return { publicKey, algorithm };
}
