import { describe, expect, it } from 'vitest';

import { assetListQuerySchema } from './asset-list-query.js';

describe('assetListQuerySchema', () => {
  it('when the query is empty, then paging defaults apply', () => {
    expect(assetListQuerySchema.parse({})).toEqual({ offset: 0, limit: 20, order: 'desc' });
  });

  it('when fields name asset properties, then they are parsed into a list', () => {
    expect(assetListQuerySchema.parse({ fields: 'assetId,assetHash', limit: '5' })).toEqual({
      offset: 0,
      limit: 5,
      order: 'desc',
      fields: ['assetId', 'assetHash'],
    });
  });

  it('when a certificate filter is sent to the asset list, then it is reported', () => {
    const result = assetListQuerySchema.safeParse({ type: 'file' });

    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it('when a field is not an asset property, then it is reported', () => {
    expect(assetListQuerySchema.safeParse({ fields: 'certID' }).success).toBe(false);
  });
});
