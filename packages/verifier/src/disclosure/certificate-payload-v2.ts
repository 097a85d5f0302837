import { canonicalJsonBytes, type JsonObject } from '../hashing/canonical-json.js';
import { doubleHash, utf8Bytes } from '../hashing/sha256.js';
import { SD_ALG } from './disclosure.js';
import type { DisclosurePath } from './disclosure-path.js';
import { assertDisclosableJson } from './json-value-check.js';
import { SelectiveDisclosureError } from './selective-disclosure-error.js';

/**
 * Version 2 of the certificate hash: `data.hash` covers every shown field, the content through
 * RFC 9901 (SD-JWT) digests so that a holder can withhold parts of it. See the README's
 * "Certificate hash, version 2" for the rule in full and why it is SD-JWT without a JWS.
 */
export const CERTIFICATE_HASH_VERSION_2 = 2;

/**
 * Prepended to the payload's canonical text before hashing, so no other input of any rule (a
 * version 1 content hash starts with `{`, a revocation with `Certificate `) and no later version
 * can hash the same bytes.
 */
export const CERTIFICATE_ROOT_DOMAIN_V2 = 'Trustpoint certificate hash v2\n';

export const CERTIFICATE_TYPES_V2 = ['content', 'file', 'asset', 'url'] as const;
export type CertificateTypeV2 = (typeof CERTIFICATE_TYPES_V2)[number];

/** The fields of `data`, besides the content, that a version 2 hash covers, always in clear. */
export interface CertificateShownFieldsV2 {
  type: CertificateTypeV2;
  name: string;
  description: string;
  /** `did:user:<sub>` of the issuing account. */
  issuer: string;
  /** The https origin of the service that issued it, when the certificate names one. */
  issuerOrigin?: string;
  /**
   * The domain the issuing account proved with a DNS TXT record naming the origin and the
   * account (lowercase, punycode), when it proved one before issuing: a claim the verifier checks
   * against the DNS itself.
   */
  issuerDomain?: string;
  /** Milliseconds since the epoch. */
  issuedOn: number;
  /** Milliseconds since the epoch; absent when it never expires. */
  expires?: number;
  /** `sha256(bytes)` of the file (file certificates) or of the bytes fetched (URL certificates). */
  fileHash?: string;
}

/** `data.selectiveDisclosure` of a version 2 certificate. */
export interface SelectiveDisclosureData {
  /** The content as the hashed payload holds it: `_sd` digests and `{"...": digest}` elements. */
  content: JsonObject;
  /** The disclosures of the fields this copy reveals (base64url; each holds a salt). */
  disclosures: string[];
}

/** `data` of a version 2 certificate (the API adds nothing the hash does not cover but `hash`). */
export interface DisclosableCertificateData extends CertificateShownFieldsV2 {
  /** What the disclosures reveal of the content: withheld members and elements are absent. */
  content: JsonObject;
  /** The root: what is anchored (the Evidence `trustPointHash`). */
  hash: string;
  hashVersion: typeof CERTIFICATE_HASH_VERSION_2;
  selectiveDisclosure: SelectiveDisclosureData;
}

/** A version 2 certificate as the API returns it (`metadata`, `access`, `status` pass through). */
export interface DisclosableCertificate {
  certID: string;
  data: DisclosableCertificateData;
}

/**
 * Which rule `data.hash` follows: 1 (DESIGN.md section 3: the content or the file only) when the
 * certificate has no `data.hashVersion`, 2 when it says 2; any other value is refused.
 */
export function certificateHashVersion(certificate: unknown): 1 | 2 {
  const version =
    isRecord(certificate) && isRecord(certificate.data) ? certificate.data.hashVersion : undefined;
  if (version === undefined) return 1;
  if (version === CERTIFICATE_HASH_VERSION_2) return 2;
  throw new SelectiveDisclosureError(
    'unknownVersion',
    `hash version ${JSON.stringify(version)} is unknown to this verifier (it knows 1 and 2)`,
    ['data', 'hashVersion'],
  );
}

/**
 * The payload a version 2 certificate's hash covers, taken from the certificate as the API
 * returns it (not its envelope):
 *
 * ```
 * { _sd_alg: "sha-256", hashVersion: 2, certID, type, name, description, issuer,
 *   issuerOrigin?, issuerDomain?, issuedOn, expires?, fileHash?,
 *   content: data.selectiveDisclosure.content }
 * ```
 *
 * Optional fields absent from the certificate are absent from the payload (never `null`), so
 * removing one from a copy changes the hash. `fileHash` is required for file and URL
 * certificates (it binds the bytes) and refused for the others.
 */
export function certificatePayloadV2(certificate: unknown): JsonObject {
  if (!isRecord(certificate) || !isRecord(certificate.data)) {
    throw invalid('a certificate is an object with certID and data', []);
  }
  if (certificateHashVersion(certificate) !== 2) {
    throw new SelectiveDisclosureError(
      'unknownVersion',
      'this certificate has no data.hashVersion: its hash follows version 1, which covers only the content or the file',
      ['data', 'hashVersion'],
    );
  }
  const { data } = certificate;
  const selective = data.selectiveDisclosure;
  if (!isRecord(selective) || !isRecord(selective.content)) {
    throw invalid('a version 2 certificate has data.selectiveDisclosure.content, an object', [
      'data',
      'selectiveDisclosure',
    ]);
  }
  return {
    ...shownPayloadMembers(certificate.certID, data),
    content: selective.content as JsonObject,
  };
}

/** `doubleHash(utf8(CERTIFICATE_ROOT_DOMAIN_V2) ‖ JCS(payload))`: 64 lowercase hex, as every anchored hash. */
export function certificateRootV2(payload: JsonObject): string {
  const domain = utf8Bytes(CERTIFICATE_ROOT_DOMAIN_V2);
  const canonical = canonicalJsonBytes(payload);
  const bytes = new Uint8Array(domain.length + canonical.length);
  bytes.set(domain, 0);
  bytes.set(canonical, domain.length);
  return doubleHash(bytes);
}

/** The payload's members other than `content`, checked: always in clear. */
export function shownPayloadMembers(certId: unknown, data: Record<string, unknown>): JsonObject {
  if (typeof certId !== 'string' || certId === '') {
    throw invalid('certID is a non-empty string', ['certID']);
  }
  if (!CERTIFICATE_TYPES_V2.includes(data.type as CertificateTypeV2)) {
    throw invalid(`type is one of ${CERTIFICATE_TYPES_V2.join(', ')}`, ['data', 'type']);
  }
  const type = data.type as CertificateTypeV2;
  const text = (name: string, required: boolean): string | undefined => {
    const value = data[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || (name !== 'name' && name !== 'description' && value === '')) {
      throw invalid(`${name} is ${required ? 'a' : 'absent or a'} string`, ['data', name]);
    }
    assertDisclosableJson(value, ['data', name]);
    return value;
  };
  const millis = (name: string, required: boolean): number | undefined => {
    const value = data[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw invalid(`${name} is ${required ? '' : 'absent or '}milliseconds since the epoch`, [
        'data',
        name,
      ]);
    }
    return value;
  };
  const fileHash = data.fileHash;
  const hasBytes = type === 'file' || type === 'url';
  if (hasBytes ? !isHash(fileHash) : fileHash !== undefined) {
    throw invalid(
      hasBytes
        ? `a ${type} certificate has fileHash, sha256 of its bytes in 64 lowercase hex`
        : `a ${type} certificate has no fileHash`,
      ['data', 'fileHash'],
    );
  }
  const members: Record<string, string | number | undefined> = {
    _sd_alg: SD_ALG,
    hashVersion: CERTIFICATE_HASH_VERSION_2,
    certID: certId,
    type,
    name: text('name', true),
    description: text('description', true),
    issuer: text('issuer', true),
    issuerOrigin: text('issuerOrigin', false),
    issuerDomain: text('issuerDomain', false),
    issuedOn: millis('issuedOn', true),
    expires: millis('expires', false),
    fileHash: hasBytes ? (fileHash as string) : undefined,
  };
  assertDisclosableJson(certId, ['certID']);
  return Object.fromEntries(
    Object.entries(members).filter(
      (entry): entry is [string, string | number] => entry[1] !== undefined,
    ),
  );
}

function isHash(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string, path: DisclosurePath): SelectiveDisclosureError {
  return new SelectiveDisclosureError('invalidCertificate', message, path);
}
