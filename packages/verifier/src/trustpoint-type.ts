/**
 * Trustpoint kinds and the codes the registry contract stores for them (spec 2.6). The contract
 * declares `enum TrustPointType { Evidence, Revocation, Signature }`, so the order is the ABI.
 */
export const TRUST_POINT_TYPE_CODES = {
  Evidence: 0,
  Revocation: 1,
  Signature: 2,
} as const;

export type TrustPointTypeName = keyof typeof TRUST_POINT_TYPE_CODES;
export type TrustPointTypeCode = (typeof TRUST_POINT_TYPE_CODES)[TrustPointTypeName];

export const TRUST_POINT_TYPE_NAMES = [
  'Evidence',
  'Revocation',
  'Signature',
] as const satisfies readonly TrustPointTypeName[];

export function trustPointTypeCode(name: TrustPointTypeName): TrustPointTypeCode {
  return TRUST_POINT_TYPE_CODES[name];
}

/** Throws a RangeError for a code the contract cannot hold, so a corrupt read never passes as a type. */
export function trustPointTypeName(code: number | bigint): TrustPointTypeName {
  const name = findTypeName(code);
  if (name === undefined) {
    throw new RangeError(`Unknown trustpoint type code: ${code}`);
  }
  return name;
}

export function isTrustPointTypeCode(code: number | bigint): boolean {
  return findTypeName(code) !== undefined;
}

function findTypeName(code: number | bigint): TrustPointTypeName | undefined {
  return TRUST_POINT_TYPE_NAMES.find((name) => TRUST_POINT_TYPE_CODES[name] === Number(code));
}
