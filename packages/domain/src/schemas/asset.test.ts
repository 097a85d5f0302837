import { describe, expect, it } from 'vitest';

import { assetListSchema } from './asset-list.js';
import { assetSchema } from './asset.js';

function sampleAsset() {
  return {
    trackID: 'did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12',
    assetId: 'P-42',
    data: { id: 'P-42', version: '1' },
    networkId: 31337,
    assetHash: 'ab'.repeat(32),
    hashVersion: 2,
    owner: 'did:user:42',
    transactions: [
      {
        metadata: { event: 'shipped', where: { city: 'Valencia' } },
        timestamp: 1767225600,
        userOwner: 'did:user:42',
        hash: 'cd'.repeat(32),
        smartContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        transactionHash: `0x${'ef'.repeat(32)}`,
        status: 'anchored',
      },
    ],
    status: 'anchored',
  };
}

describe('assetSchema', () => {
  it('when parsing a well-formed asset with a transaction, then it passes', () => {
    expect(assetSchema.parse(sampleAsset())).toEqual(sampleAsset());
  });

  it('when a transaction owner is not a user DID, then the issue names it', () => {
    // Arrange
    const asset = sampleAsset();
    const transaction = { ...asset.transactions[0], userOwner: 'bob' };

    // Act
    const result = assetSchema.safeParse({ ...asset, transactions: [transaction] });

    // Assert
    expect(result.error?.issues[0]?.path).toEqual(['transactions', 0, 'userOwner']);
  });

  it('when the networkId is zero, then it is rejected', () => {
    expect(assetSchema.safeParse({ ...sampleAsset(), networkId: 0 }).success).toBe(false);
  });

  it('when listing assets, then pagination order must be asc or desc', () => {
    const list = {
      assets: [sampleAsset()],
      pagination: { offset: 0, limit: 20, total: 1, order: 'up' },
    };

    expect(assetListSchema.safeParse(list).error?.issues[0]?.path).toEqual(['pagination', 'order']);
  });
});
