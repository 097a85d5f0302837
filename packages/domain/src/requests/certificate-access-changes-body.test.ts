import { describe, expect, it } from 'vitest';

import { certificateAccessChangesBodySchema } from './certificate-access-changes-body.js';
import { networkQuerySchema } from './network-query.js';

describe('certificate access changes body', () => {
  it('when fields are set or nulled, then they parse as given', () => {
    const parsed = certificateAccessChangesBodySchema.parse({
      public: true,
      certificatePin: null,
      externalId: 'x',
    });

    expect(parsed).toEqual({ public: true, certificatePin: null, externalId: 'x' });
  });

  it('when the body is empty, has unknown keys or empty strings, then it is refused', () => {
    expect(certificateAccessChangesBodySchema.safeParse({}).success).toBe(false);
    expect(certificateAccessChangesBodySchema.safeParse({ owner: 'me' }).success).toBe(false);
    expect(certificateAccessChangesBodySchema.safeParse({ externalId: '' }).success).toBe(false);
  });
});

describe('network query', () => {
  it('when networkId is decimal text, then it becomes a number; otherwise it is refused', () => {
    expect(networkQuerySchema.parse({ networkId: '31337' })).toEqual({ networkId: 31337 });
    expect(networkQuerySchema.safeParse({}).success).toBe(false);
    expect(networkQuerySchema.safeParse({ networkId: 'mainnet' }).success).toBe(false);
  });
});
