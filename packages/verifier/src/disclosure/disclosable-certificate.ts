import { canonicalJson, type JsonObject } from '../hashing/canonical-json.js';
import {
  CERTIFICATE_HASH_VERSION_2,
  certificatePayloadV2,
  certificateRootV2,
  shownPayloadMembers,
  type CertificateShownFieldsV2,
  type DisclosableCertificateData,
} from './certificate-payload-v2.js';
import { addedBesideData, addedToStructure, V2_STRUCTURE } from './certificate-members.js';
import { randomSalt } from './disclosure.js';
import {
  formatDisclosurePath,
  isWithin,
  samePath,
  type DisclosurePath,
} from './disclosure-path.js';
import {
  packDisclosable,
  unpackDisclosures,
  type DisclosedField,
  type WithheldField,
} from './sd-payload.js';
import { SelectiveDisclosureError } from './selective-disclosure-error.js';

/** What the issuer knows before hashing: the shown fields and the whole content. */
export interface DisclosableCertificateDraft {
  certID: string;
  data: CertificateShownFieldsV2 & { content: JsonObject };
}

export interface CreateDisclosableCertificateOptions {
  /**
   * Content fields kept in clear, each with everything under it (`[['content', 'file']]`):
   * shown in every copy and never withholdable. By default every content field is disclosable.
   */
  inClear?: readonly DisclosurePath[];
  /**
   * The salt of the field at a path. Only for test vectors: the default draws 128 bits from the
   * platform's CSPRNG per field, and a salt anyone can guess lets them test guesses of a withheld
   * value against its digest.
   */
  salt?: (path: DisclosurePath) => string;
}

/** A draft turned into a version 2 certificate: `certificate` is the draft with `data` completed. */
export interface DisclosableCertificateCreation<Draft extends DisclosableCertificateDraft> {
  /** The root: `data.hash`, and the Evidence `trustPointHash` to anchor. */
  hash: string;
  /** What the root covers (see `certificatePayloadV2`). */
  payload: JsonObject;
  /** Every disclosure; they hold the salts, so store them with the certificate and show them only to its readers. */
  disclosures: string[];
  certificate: Omit<Draft, 'data'> & { data: Draft['data'] & DisclosableCertificateData };
}

/**
 * Issues a version 2 certificate: every member and array element of the content, at every depth,
 * becomes disclosable (unless `inClear`), the other shown fields are in clear, and the root is the
 * hash to anchor. Refuses content that is not I-JSON (integers beyond ±(2^53 − 1), NaN, …) or has
 * a member named `_sd` or `...`, and shown fields of the wrong type.
 */
export function createDisclosableCertificate<Draft extends DisclosableCertificateDraft>(
  draft: Draft,
  options: CreateDisclosableCertificateOptions = {},
): DisclosableCertificateCreation<Draft> {
  const inClear = options.inClear ?? [];
  const shown = shownPayloadMembers(draft.certID, draft.data as unknown as Record<string, unknown>);
  const packed = packDisclosable(draft.data.content, ['content'], {
    salt: options.salt ?? randomSalt,
    inClear: (path) => inClear.some((clear) => samePath(clear, path)),
  });
  const payload: JsonObject = { ...shown, content: packed.value };
  const hash = certificateRootV2(payload);
  const disclosures = packed.disclosures.map((disclosure) => disclosure.encoded);
  return {
    hash,
    payload,
    disclosures,
    certificate: {
      ...draft,
      data: {
        ...draft.data,
        hash,
        hashVersion: CERTIFICATE_HASH_VERSION_2,
        selectiveDisclosure: { content: packed.value as JsonObject, disclosures },
      },
    },
  };
}

/** What a version 2 certificate's copy proves. */
export interface DisclosableCertificateReading {
  /** The root recomputed from the copy: compare it with `data.hash` and with the chain. */
  hash: string;
  payload: JsonObject;
  /** The content the disclosures reveal; `data.content` was checked to be exactly this. */
  content: JsonObject;
  /** The fields this copy discloses, by their paths in the payload (`['content', 'grade']`). */
  disclosed: DisclosedField[];
  /** What the holder withheld: for a member only the object it was in, as its name is hidden too. */
  withheld: WithheldField[];
  /**
   * What the copy shows that the hash does not cover, added by whoever handed it on: members of
   * `data` outside the rule (`fileName`), inside `data.selectiveDisclosure` beside its content and
   * disclosures (`selectiveDisclosure.grade`), in a trustpoint of `metadata` beside what the API
   * gives it (`metadata[0].note`), and beside `data` (`$.grade`). A copy that shows any is not the
   * certificate as issued, whatever its hash.
   */
  uncovered: string[];
}

/**
 * Recomputes a version 2 certificate's root from a copy (the certificate as the API returns it, or
 * as a holder handed it on) and reveals its content. Throws a `SelectiveDisclosureError` with a
 * precise code when the copy is not well formed under the rule (see `unpackDisclosures`), or when
 * `data.content` is not exactly what the disclosures reveal (a shown content that the hash does
 * not cover is what this rule exists to prevent).
 */
export function readDisclosableCertificate(certificate: unknown): DisclosableCertificateReading {
  const payload = certificatePayloadV2(certificate);
  const data = (certificate as { data: Record<string, unknown> }).data;
  const disclosures = (data.selectiveDisclosure as Record<string, unknown>).disclosures;
  if (!Array.isArray(disclosures) || !disclosures.every((item) => typeof item === 'string')) {
    throw new SelectiveDisclosureError('invalidCertificate', 'disclosures is an array of strings', [
      'data',
      'selectiveDisclosure',
      'disclosures',
    ]);
  }
  const { claims, disclosed, withheld } = unpackDisclosures(payload, disclosures);
  const content = claims.content as JsonObject;
  if (!sameJson(content, data.content)) {
    throw new SelectiveDisclosureError(
      'contentMismatch',
      'data.content is not what the disclosures reveal: the hash covers the disclosures, not this content',
      ['data', 'content'],
    );
  }
  // Own members only: `constructor` or `__proto__` in a copy are no members of the payload.
  const uncovered = [
    ...Object.keys(data).filter(
      (name) =>
        (name === '_sd_alg' || !Object.hasOwn(payload, name)) && !V2_STRUCTURE.includes(name),
    ),
    ...addedToStructure(certificate as Record<string, unknown>),
    ...addedBesideData(certificate as Record<string, unknown>),
  ];
  return { hash: certificateRootV2(payload), payload, content, disclosed, withheld, uncovered };
}

/**
 * A copy of a version 2 certificate without the disclosures at `paths` (and those under them),
 * its `data.content` without those fields: the same root still verifies, and a reader sees what
 * was withheld (see `readDisclosableCertificate`). Paths are payload paths as `disclosed` lists
 * them, array indices as issued. Refuses the fields always shown in clear (certID, type, name,
 * description, issuer, issuerOrigin, issuerDomain, issuedOn, expires, fileHash, hashVersion),
 * `content` as a
 * whole, fields the issuer kept in clear, and paths this copy does not disclose. Other members of
 * the certificate (metadata, access, …) are kept as they are.
 */
export function withholdCertificateFields<Certificate extends object>(
  certificate: Certificate,
  paths: readonly DisclosurePath[],
): Certificate {
  const reading = readDisclosableCertificate(certificate);
  for (const path of paths) assertWithholdable(path, reading.disclosed);
  const data = (certificate as unknown as { data: DisclosableCertificateData }).data;
  const kept = data.selectiveDisclosure.disclosures.filter((encoded) => {
    const field = reading.disclosed.find((candidate) => candidate.disclosure === encoded);
    return field !== undefined && !paths.some((path) => isWithin(field.path, path));
  });
  const { claims } = unpackDisclosures(reading.payload, kept);
  return {
    ...certificate,
    data: {
      ...data,
      content: claims.content,
      selectiveDisclosure: { ...data.selectiveDisclosure, disclosures: kept },
    },
  };
}

function assertWithholdable(path: DisclosurePath, disclosed: readonly DisclosedField[]): void {
  if (path.length === 0 || path[0] !== 'content') {
    throw new SelectiveDisclosureError(
      'notWithholdable',
      `${formatDisclosurePath(path.slice(0, 1))} is always shown in clear: only fields of the content can be withheld`,
      path,
    );
  }
  if (path.length === 1) {
    throw new SelectiveDisclosureError(
      'notWithholdable',
      'the content as a whole cannot be withheld; name its members',
      path,
    );
  }
  if (!disclosed.some((field) => samePath(field.path, path))) {
    throw new SelectiveDisclosureError(
      'notDisclosed',
      'this copy discloses no field there (withheld already, kept in clear by the issuer, or absent)',
      path,
    );
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
