/** Function selectors and the not-found revert data the spec publishes (section 4.8). */

/** `getTrustPoint(string,uint256)`. */
export const GET_TRUST_POINT_SELECTOR = '0x4a532653';

/** `getEvidence(string,uint256)`. */
export const GET_EVIDENCE_SELECTOR = '0xf74328fe';

/**
 * Revert data of `getTrustPoint` for an unknown key: exactly these 4 bytes, no arguments. The
 * contract's odd error name (`TrustPointNotFound_6Gr6z8()`) exists only to hash to this selector.
 */
export const TRUST_POINT_NOT_FOUND_SELECTOR = '0x16fd89cc';

/** Revert data of `getEvidence` for an unknown key (`EvidenceNotFound_7QF74()`). */
export const EVIDENCE_NOT_FOUND_SELECTOR = '0x09cea733';

/** `revocationOf(string)` of the status registry: `(bool revoked, uint64 timestamp, uint64 recordedAt)`. */
export const REVOCATION_OF_SELECTOR = '0x776a3a16';
