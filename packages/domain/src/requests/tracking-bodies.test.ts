import { describe, expect, it } from 'vitest';

import { addEvidenceBodySchema } from './add-evidence-body.js';
import { createAssetBodySchema } from './create-asset-body.js';

describe('createAssetBodySchema', () => {
  it('when assetId, data and networkId are given, then the body is valid', () => {
    const body = { assetId: 'P-42', data: { id: 'P-42', version: '1' }, networkId: 31337 };

    expect(createAssetBodySchema.parse(body)).toEqual(body);
  });

  it('when data is not an object and a key is unknown, then both are reported', () => {
    const result = createAssetBodySchema.safeParse({
      assetId: 'P-42',
      data: 'x',
      networkId: 1,
      owner: 'me',
    });

    expect(result.error?.issues.map((issue) => issue.code)).toEqual([
      'invalid_type',
      'unrecognized_keys',
    ]);
  });
});

describe('addEvidenceBodySchema', () => {
  it('when metadata is a nested object, then the body is valid', () => {
    const body = { metadata: { event: 'shipped', where: { city: 'Valencia' } } };

    expect(addEvidenceBodySchema.parse(body)).toEqual(body);
  });

  it('when the client sends its own timestamp, then it is reported: the service sets it', () => {
    const result = addEvidenceBodySchema.safeParse({ metadata: {}, timestamp: 1 });

    expect(result.error?.issues[0]?.message).toContain('timestamp');
  });
});
