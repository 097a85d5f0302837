import type { JsonObject, JsonValue } from '../hashing/canonical-json.js';
import {
  decodeDisclosure,
  encodeDisclosure,
  isDisclosureDigest,
  SD_ALG,
  type Disclosure,
} from './disclosure.js';
import type { DisclosurePath } from './disclosure-path.js';
import { assertDisclosableJson, assertMemberName, defineMember } from './json-value-check.js';
import { SelectiveDisclosureError } from './selective-disclosure-error.js';

/**
 * The selective-disclosure syntax of RFC 9901 (SD-JWT), section 4.2, on any JSON payload: an
 * object member is replaced by the digest of its disclosure `[salt, name, value]` in the object's
 * `_sd` array, an array element by `{"...": digest}` of `[salt, value]`. Nothing here is specific
 * to certificates (see certificate-v2.ts for what a certificate's payload holds).
 */

/** A field the disclosures reveal, at its path in the payload. */
export interface DisclosedField {
  path: DisclosurePath;
  digest: string;
  /** The disclosure itself (base64url). */
  disclosure: string;
}

/** A field whose disclosure is absent: a digest in the payload that no given disclosure matches. */
export type WithheldField =
  /** A member of the object at `objectPath`; its name is withheld with its value. */
  | { kind: 'member'; objectPath: DisclosurePath; digest: string }
  /** The array element at `path` (its index as issued; the shown array closes the gap). */
  | { kind: 'element'; path: DisclosurePath; digest: string };

export interface PackOptions {
  /** The salt of the field at `path`. */
  salt: (path: DisclosurePath) => string;
  /** True for a field kept in clear, with everything under it; otherwise it is disclosable. */
  inClear: (path: DisclosurePath) => boolean;
}

export interface PackedValue {
  /** The value as the payload holds it: `_sd` digests and `{"...": digest}` elements. */
  value: JsonValue;
  /** One per disclosable field, a parent before its children, members in RFC 8785 order. */
  disclosures: Disclosure[];
}

/**
 * Makes every member and element under `value` disclosable, nested ones too (each can be
 * withheld alone; withholding a parent withholds what is under it). `_sd` arrays are sorted so
 * they do not reveal the order of the members (RFC 9901 section 4.2.4.1). `path` is where `value`
 * sits, for salts and messages.
 */
export function packDisclosable(
  value: JsonValue,
  path: DisclosurePath,
  options: PackOptions,
): PackedValue {
  assertDisclosableJson(value, path);
  return pack(value, path, options);
}

function pack(value: JsonValue, path: DisclosurePath, options: PackOptions): PackedValue {
  if (value === null || typeof value !== 'object') return { value, disclosures: [] };
  const disclosures: Disclosure[] = [];
  const disclose = (childPath: DisclosurePath, name: string | undefined, child: JsonValue) => {
    const packed = pack(child, childPath, options);
    const disclosure = encodeDisclosure(options.salt(childPath), name, packed.value, childPath);
    disclosures.push(disclosure, ...packed.disclosures);
    return disclosure.digest;
  };
  if (Array.isArray(value)) {
    const elements = value.map((element, index) => {
      const elementPath = [...path, index];
      return options.inClear(elementPath)
        ? element
        : { '...': disclose(elementPath, undefined, element) };
    });
    return { value: elements, disclosures };
  }
  const object: JsonObject = {};
  const digests: string[] = [];
  for (const name of Object.keys(value).sort()) {
    const member = value[name] as JsonValue;
    const memberPath = [...path, name];
    if (options.inClear(memberPath)) defineMember(object, name, member);
    else digests.push(disclose(memberPath, name, member));
  }
  if (digests.length > 0) object._sd = digests.sort();
  return { value: object, disclosures };
}

export interface UnpackedPayload {
  /** The payload as the disclosures reveal it: no `_sd_alg`, `_sd` or `{"...": digest}` left. */
  claims: JsonObject;
  disclosed: DisclosedField[];
  withheld: WithheldField[];
}

/**
 * Reveals `payload` with `disclosures` (RFC 9901 section 7.1, steps 3 to 5), refusing what a
 * verifier must refuse and more: an `_sd_alg` other than `sha-256`; a digest found twice in the
 * payload; a disclosure given twice, malformed (see `decodeDisclosure`), referenced from the wrong
 * place, not referenced at all, or naming a member the object already has; a member named `...`;
 * a number outside I-JSON. A digest no disclosure matches is a withheld field.
 */
export function unpackDisclosures(
  payload: JsonObject,
  disclosures: readonly string[],
): UnpackedPayload {
  const algorithm = payload._sd_alg;
  if (algorithm !== undefined && algorithm !== SD_ALG) {
    throw new SelectiveDisclosureError(
      'unsupportedAlgorithm',
      `_sd_alg ${JSON.stringify(algorithm)} is not supported; this rule knows only "${SD_ALG}"`,
      ['_sd_alg'],
    );
  }
  const byDigest = new Map<string, Disclosure>();
  for (const encoded of disclosures) {
    const disclosure = decodeDisclosure(encoded);
    if (byDigest.has(disclosure.digest)) {
      throw new SelectiveDisclosureError(
        'duplicateDisclosure',
        `the disclosure ${encoded} is given twice`,
      );
    }
    byDigest.set(disclosure.digest, disclosure);
  }
  const reader = new PayloadReader(byDigest);
  const { _sd_alg: _algorithm, ...rest } = payload;
  const claims = reader.object(rest, []);
  for (const disclosure of byDigest.values()) {
    if (!reader.used.has(disclosure.digest)) {
      throw new SelectiveDisclosureError(
        'unreferencedDisclosure',
        `the disclosure ${disclosure.encoded} (digest ${disclosure.digest}) is not referenced by the payload nor by another disclosure given`,
      );
    }
  }
  // `_sd` arrays are in digest order, which the salts make random: the list is sorted so that the
  // same copy always reads the same (members before elements, then by path).
  const place = (field: WithheldField) =>
    `${field.kind === 'member' ? '0' : '1'}${JSON.stringify(field.kind === 'member' ? field.objectPath : field.path)}`;
  const withheld = [...reader.withheld].sort((a, b) =>
    place(a) < place(b) ? -1 : place(a) > place(b) ? 1 : 0,
  );
  return { claims, disclosed: reader.disclosed, withheld };
}

class PayloadReader {
  readonly used = new Set<string>();
  readonly disclosed: DisclosedField[] = [];
  readonly withheld: WithheldField[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly byDigest: ReadonlyMap<string, Disclosure>) {}

  value(value: unknown, path: DisclosurePath): JsonValue {
    if (Array.isArray(value)) return this.array(value, path);
    if (typeof value === 'object' && value !== null) {
      return this.object(value as Record<string, unknown>, path);
    }
    assertDisclosableJson(value, path);
    return value;
  }

  object(object: Record<string, unknown>, path: DisclosurePath): JsonObject {
    const revealed: JsonObject = {};
    for (const name of Object.keys(object).sort()) {
      if (name === '_sd') continue;
      const memberPath = [...path, name];
      assertMemberName(name, memberPath);
      defineMember(revealed, name, this.value(object[name], memberPath));
    }
    if (!Object.hasOwn(object, '_sd')) return revealed;
    const digests = object._sd;
    if (!Array.isArray(digests) || !digests.every(isDisclosureDigest)) {
      throw malformedPayload('_sd is an array of base64url SHA-256 digests', [...path, '_sd']);
    }
    for (const digest of digests) {
      const disclosure = this.take(digest, path);
      if (disclosure === undefined) {
        this.withheld.push({ kind: 'member', objectPath: path, digest });
        continue;
      }
      if (disclosure.name === undefined) {
        throw new SelectiveDisclosureError(
          'wrongDisclosureKind',
          `the digest ${digest} in _sd is of an array element's disclosure, not a member's`,
          path,
        );
      }
      const memberPath = [...path, disclosure.name];
      if (Object.hasOwn(revealed, disclosure.name)) {
        throw new SelectiveDisclosureError(
          'duplicateMember',
          'a disclosure names a member the object already has',
          memberPath,
        );
      }
      this.disclosed.push({ path: memberPath, digest, disclosure: disclosure.encoded });
      defineMember(revealed, disclosure.name, this.value(disclosure.value, memberPath));
    }
    return revealed;
  }

  private array(array: readonly unknown[], path: DisclosurePath): JsonValue[] {
    const revealed: JsonValue[] = [];
    array.forEach((element, index) => {
      const elementPath = [...path, index];
      if (typeof element !== 'object' || element === null || !Object.hasOwn(element, '...')) {
        revealed.push(this.value(element, elementPath));
        return;
      }
      const digest = (element as Record<string, unknown>)['...'];
      if (Object.keys(element).length !== 1 || !isDisclosureDigest(digest)) {
        throw malformedPayload(
          'an element with "..." is {"...": digest} and has no other member',
          elementPath,
        );
      }
      const disclosure = this.take(digest, elementPath);
      if (disclosure === undefined) {
        this.withheld.push({ kind: 'element', path: elementPath, digest });
        return;
      }
      if (disclosure.name !== undefined) {
        throw new SelectiveDisclosureError(
          'wrongDisclosureKind',
          `the digest ${digest} is of a member's disclosure, not an array element's`,
          elementPath,
        );
      }
      this.disclosed.push({ path: elementPath, digest, disclosure: disclosure.encoded });
      revealed.push(this.value(disclosure.value, elementPath));
    });
    return revealed;
  }

  /** Records that `digest` is used here; a digest met twice anywhere is refused. */
  private take(digest: string, path: DisclosurePath): Disclosure | undefined {
    if (this.seen.has(digest)) {
      throw new SelectiveDisclosureError(
        'duplicateDigest',
        `the digest ${digest} appears twice in the payload`,
        path,
      );
    }
    this.seen.add(digest);
    const disclosure = this.byDigest.get(digest);
    if (disclosure !== undefined) this.used.add(digest);
    return disclosure;
  }
}

function malformedPayload(message: string, path: DisclosurePath): SelectiveDisclosureError {
  return new SelectiveDisclosureError('malformedPayload', message, path);
}
