import { describe, expect, it } from 'vitest';

import {
  isTrustPointTypeCode,
  TRUST_POINT_TYPE_NAMES,
  trustPointTypeCode,
  trustPointTypeName,
  trustPointTypeNameSchema,
} from './trustpoint-type.js';

describe('trustpoint types', () => {
  it.each([
    ['Evidence', 0],
    ['Revocation', 1],
    ['Signature', 2],
  ] as const)('when converting %s, then its code is %i and back', (name, code) => {
    expect(trustPointTypeCode(name)).toBe(code);
    expect(trustPointTypeName(code)).toBe(name);
    expect(trustPointTypeName(BigInt(code))).toBe(name);
  });

  it('when listing names, then they follow the Solidity enum order', () => {
    expect(TRUST_POINT_TYPE_NAMES.map(trustPointTypeCode)).toEqual([0, 1, 2]);
  });

  it.each([[3], [-1], [1.5], [256n]])('when the code is %s, then it is unknown', (code) => {
    expect(isTrustPointTypeCode(code)).toBe(false);
    expect(() => trustPointTypeName(code)).toThrow(RangeError);
  });

  it('when validating a name, then only the three names pass', () => {
    expect(trustPointTypeNameSchema.safeParse('Revocation').success).toBe(true);
    expect(trustPointTypeNameSchema.safeParse('revocation').success).toBe(false);
  });
});
