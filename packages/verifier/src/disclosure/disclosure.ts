import { base64url } from 'jose';

import { canonicalJson, type JsonValue } from '../hashing/canonical-json.js';
import { pooledRandomBytes } from '../random/random-pool.js';
import { sha256Digest, utf8Bytes } from '../hashing/sha256.js';
import type { DisclosurePath } from './disclosure-path.js';
import { assertMemberName } from './json-value-check.js';
import { SelectiveDisclosureError } from './selective-disclosure-error.js';

/** The only `_sd_alg` this rule knows (RFC 9901's default, and the IANA name of SHA-256). */
export const SD_ALG = 'sha-256';

/** 128 bits: RFC 9901 section 9.3's minimum, here a rule (checked when disclosures are read). */
export const SALT_BYTES = 16;

/** A digest of SHA-256 in base64url without padding: 43 characters. */
const DIGEST_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** One decoded disclosure: an object member (`name` set) or an array element. */
export interface Disclosure {
  /** The disclosure as sent: base64url (no padding) of the RFC 8785 text of the array. */
  encoded: string;
  /** base64url(sha-256(ASCII of `encoded`)), what the payload holds in its place. */
  digest: string;
  salt: string;
  /** The member's name; absent for an array element (`[salt, value]`). */
  name?: string;
  /** The value as the payload would hold it: nested disclosable fields are digests in it. */
  value: JsonValue;
}

/** Fresh salt: 128 bits from the platform's CSPRNG (WebCrypto, in browsers and Node alike). */
export function randomSalt(): string {
  return base64url.encode(pooledRandomBytes(SALT_BYTES));
}

/** RFC 9901 digest: base64url(sha-256(the disclosure's ASCII characters)). */
export function disclosureDigest(encoded: string): string {
  return base64url.encode(sha256Digest(utf8Bytes(encoded)));
}

export function isDisclosureDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST_PATTERN.test(value);
}

/**
 * Makes the disclosure of an object member (`name` given) or of an array element. Its JSON text
 * is RFC 8785 canonical, so the same salt, name and value always give the same disclosure.
 */
export function encodeDisclosure(
  salt: string,
  name: string | undefined,
  value: JsonValue,
  path: DisclosurePath,
): Disclosure {
  assertSalt(salt, path);
  if (name !== undefined) assertMemberName(name, path);
  const array: JsonValue[] = name === undefined ? [salt, value] : [salt, name, value];
  const encoded = base64url.encode(utf8Bytes(canonicalJson(array)));
  return {
    encoded,
    digest: disclosureDigest(encoded),
    salt,
    ...(name === undefined ? {} : { name }),
    value,
  };
}

/**
 * Reads a disclosure. Stricter than RFC 9901 requires of a verifier, so that a disclosure has one
 * reading in every implementation: canonical base64url, well-formed UTF-8, and JSON text that is
 * exactly its RFC 8785 form (a member given twice, `1.0` for `1`, or an integer beyond 2^53 would
 * otherwise read differently in different parsers while the digest stays the same).
 */
export function decodeDisclosure(encoded: unknown): Disclosure {
  if (typeof encoded !== 'string' || !/^[A-Za-z0-9_-]+$/.test(encoded)) {
    throw malformed('a disclosure is a base64url string without padding');
  }
  const bytes = base64url.decode(encoded);
  if (base64url.encode(bytes) !== encoded) {
    throw malformed(`${encoded} is not canonical base64url`);
  }
  let text: string;
  let array: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    array = JSON.parse(text);
  } catch {
    throw malformed(`${encoded} is not base64url of UTF-8 JSON`);
  }
  if (!Array.isArray(array) || (array.length !== 2 && array.length !== 3)) {
    throw malformed(`${encoded} is not [salt, name, value] nor [salt, value]`);
  }
  const [salt, ...rest] = array as unknown[];
  const name: unknown = rest.length === 2 ? rest[0] : undefined;
  const value: unknown = rest.length === 2 ? rest[1] : rest[0];
  if (typeof salt !== 'string') throw malformed(`${encoded}: the salt is not a string`);
  if (rest.length === 2 && typeof name !== 'string') {
    throw malformed(`${encoded}: the member name is not a string`);
  }
  const where = typeof name === 'string' ? [name] : [];
  assertSalt(salt, where);
  if (typeof name === 'string') assertMemberName(name, where);
  // The value's own numbers and names are checked where it is placed (unpackDisclosures), as it
  // may hold `_sd` arrays and `{"...": digest}` elements of nested disclosures.
  if (canonicalTextOf(array) !== text) {
    throw malformed(`${encoded} is not the RFC 8785 (JCS) text of its array`);
  }
  return {
    encoded,
    digest: disclosureDigest(encoded),
    salt,
    ...(typeof name === 'string' ? { name } : {}),
    value: value as JsonValue,
  };
}

function assertSalt(salt: string, path: DisclosurePath): void {
  const bytes = /^[A-Za-z0-9_-]+$/.test(salt) ? base64url.decode(salt) : undefined;
  if (bytes === undefined || base64url.encode(bytes) !== salt || bytes.length < SALT_BYTES) {
    throw new SelectiveDisclosureError(
      'weakSalt',
      `a salt is canonical base64url of at least ${SALT_BYTES} random bytes (128 bits), not ${JSON.stringify(salt)}`,
      path,
    );
  }
}

function canonicalTextOf(array: unknown[]): string | undefined {
  try {
    return canonicalJson(array);
  } catch {
    return undefined; // a lone surrogate, say: no canonical text, so no match
  }
}

function malformed(message: string): SelectiveDisclosureError {
  return new SelectiveDisclosureError('malformedDisclosure', message);
}
