import { describe, expect, it } from 'vitest';

import { createCertificateQuerySchema } from './create-certificate-query.js';

describe('createCertificateQuerySchema', () => {
  it('when flags are omitted, then they default to false and networkId becomes a number', () => {
    expect(createCertificateQuerySchema.parse({ type: 'file', networkId: '31337' })).toEqual({
      type: 'file',
      networkId: 31337,
      qualified: false,
      publish: false,
    });
  });

  it('when flags are the text true or false, then they become booleans', () => {
    const parsed = createCertificateQuerySchema.parse({
      type: 'file',
      networkId: '1',
      qualified: 'true',
      publish: 'false',
    });

    expect([parsed.qualified, parsed.publish]).toEqual([true, false]);
  });

  it.each([
    ['a flag spelt yes', { qualified: 'yes' }, 'qualified'],
    ['no networkId', { networkId: undefined }, 'networkId'],
    ['a named network', { networkId: 'sepolia' }, 'networkId'],
    ['an unknown type', { type: 'video' }, 'type'],
  ])('when the query has %s, then that parameter is reported', (_, change, field) => {
    const result = createCertificateQuerySchema.safeParse({
      type: 'file',
      networkId: '1',
      ...change,
    });

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });
});
