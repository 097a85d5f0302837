import { describe, expect, it } from 'vitest';

import { canonicalJsonBytes } from './canonical-json.js';
import { doubleHash } from './sha256.js';
import { assetHash, evidenceHash } from './track-hash.js';

describe('assetHash', () => {
  it('when hashing an asset, then it is the double hash of JCS({assetId, data})', () => {
    // Arrange
    const asset = { assetId: 'P-42', data: { version: '1', id: 'P-42' } };

    // Act
    const hash = assetHash(asset);

    // Assert
    expect(hash).toBe(
      doubleHash(Buffer.from('{"assetId":"P-42","data":{"id":"P-42","version":"1"}}')),
    );
  });

  it('when the data differs, then the hash differs', () => {
    expect(assetHash({ assetId: 'A', data: { v: 1 } })).not.toBe(
      assetHash({ assetId: 'A', data: { v: 2 } }),
    );
  });
});

describe('evidenceHash', () => {
  it('when hashing an evidence, then it is the double hash of JCS({metadata, timestamp, userOwner})', () => {
    const evidence = {
      metadata: { event: 'shipped' },
      timestamp: 1767225600,
      userOwner: 'did:user:42',
    };

    expect(evidenceHash(evidence)).toBe(doubleHash(canonicalJsonBytes(evidence)));
  });

  it('when only the timestamp changes, then the hash changes', () => {
    const base = { metadata: {}, userOwner: 'did:user:42' };

    expect(evidenceHash({ ...base, timestamp: 1 })).not.toBe(
      evidenceHash({ ...base, timestamp: 2 }),
    );
  });
});
