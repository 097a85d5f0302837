import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';

export type { JSONWebKeySet } from 'jose';

import { canonicalJson } from '../hashing/canonical-json.js';
import { utf8Bytes } from '../hashing/sha256.js';
import { signatureTrustPointHash } from '../hashing/trustpoint-hash.js';

/** What a qualified signature binds: the certificate's identity, its hash and when it was signed. */
export interface SignedCertificateFields {
  certID: string;
  hash: string;
  /** File certificates only. */
  fileHash?: string | undefined;
  /** `did:user:<sub>` of the issuer. */
  issuer: string;
  issuedOn: number;
  type: string;
}

/** JWS algorithms a Trustpoint service signs with (EC P-256 and Ed25519 keys). */
export const QUALIFIED_SIGNATURE_ALGORITHMS = ['ES256', 'EdDSA'] as const;

/**
 * The text a qualified signature signs: RFC 8785 canonical JSON of the signed fields, `signedAt`
 * being the Signature trustpoint's timestamp, which ties the JWS to its on-chain key.
 */
export function qualifiedSignaturePayload(
  certificate: SignedCertificateFields,
  signedAt: number,
): string {
  return canonicalJson({
    certID: certificate.certID,
    hash: certificate.hash,
    ...(certificate.fileHash === undefined ? {} : { fileHash: certificate.fileHash }),
    issuer: certificate.issuer,
    issuedOn: certificate.issuedOn,
    type: certificate.type,
    signedAt,
  });
}

/** Signature trustpoint hash of a compact JWS: `doubleHash(utf8(jws))`. */
export function qualifiedSignatureTrustPointHash(jws: string): string {
  return signatureTrustPointHash(utf8Bytes(jws));
}

export type SignatureCheck =
  { valid: true; kid: string | undefined; algorithm: string } | { valid: false; reason: string };

/**
 * Whether `jws` is a qualified signature of `certificate` at `signedAt`: made by a key of `jwks`
 * (chosen by the JWS `kid`, with one of the pinned algorithms) over exactly the payload the
 * certificate gives. Uses WebCrypto, so it runs in browsers as in Node.
 */
export async function verifyQualifiedSignature(input: {
  jws: string;
  certificate: SignedCertificateFields;
  signedAt: number;
  jwks: JSONWebKeySet;
}): Promise<SignatureCheck> {
  let verified;
  try {
    verified = await compactVerify(input.jws, createLocalJWKSet(input.jwks), {
      algorithms: [...QUALIFIED_SIGNATURE_ALGORITHMS],
    });
  } catch (error) {
    return {
      valid: false,
      reason: `the JWS does not verify with the key set (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const payload = new TextDecoder().decode(verified.payload);
  if (payload !== qualifiedSignaturePayload(input.certificate, input.signedAt)) {
    return { valid: false, reason: 'the JWS signs other fields than this certificate and time' };
  }
  return {
    valid: true,
    kid: verified.protectedHeader.kid,
    algorithm: verified.protectedHeader.alg,
  };
}
