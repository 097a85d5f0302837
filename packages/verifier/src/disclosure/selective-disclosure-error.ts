import { formatDisclosurePath, type DisclosurePath } from './disclosure-path.js';

/** Why a disclosable certificate, a disclosure or a request to withhold was refused. */
export type SelectiveDisclosureErrorCode =
  /** A value JSON cannot carry interoperably (I-JSON, RFC 7493): an integer beyond ±(2^53−1), NaN, Infinity, … */
  | 'notIJson'
  /** A member named `_sd` or `...`, which would read as the selective-disclosure syntax. */
  | 'reservedName'
  /** A salt that is not base64url of at least 16 bytes (128 bits). */
  | 'weakSalt'
  /** A disclosure that is not base64url of the RFC 8785 text of `[salt, name, value]` or `[salt, value]`. */
  | 'malformedDisclosure'
  /** `_sd_alg` other than `sha-256`. */
  | 'unsupportedAlgorithm'
  /** The same digest twice in the payload (in `_sd` arrays or `{"...": digest}` elements). */
  | 'duplicateDigest'
  /** The same disclosure given twice. */
  | 'duplicateDisclosure'
  /** A disclosure whose digest the payload (or a disclosed value) does not hold. */
  | 'unreferencedDisclosure'
  /** A disclosed member whose name the object already has. */
  | 'duplicateMember'
  /** A member disclosure referenced from an array, or an element disclosure from `_sd`. */
  | 'wrongDisclosureKind'
  /** `_sd` not an array of digests, a `{"...": digest}` element with other members, … */
  | 'malformedPayload'
  /** `data.content` is not what the disclosures and the payload give. */
  | 'contentMismatch'
  /** A field the rule always shows in clear (certID, type, issuer, …) named to be withheld. */
  | 'notWithholdable'
  /** Nothing is disclosed at a path named to be withheld. */
  | 'notDisclosed'
  /** `data.hashVersion` names a rule this package does not know. */
  | 'unknownVersion'
  /** A shown field missing or of the wrong type. */
  | 'invalidCertificate';

/** Thrown by every function of the selective-disclosure rule; `path` points at the culprit when there is one. */
export class SelectiveDisclosureError extends Error {
  override readonly name = 'SelectiveDisclosureError';

  constructor(
    readonly code: SelectiveDisclosureErrorCode,
    message: string,
    readonly path?: DisclosurePath,
  ) {
    super(path === undefined ? message : `${formatDisclosurePath(path)}: ${message}`);
  }
}
