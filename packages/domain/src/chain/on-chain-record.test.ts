import { describe, expect, it } from 'vitest';

import { toEvidenceRecord, toTrustPointRecord } from './on-chain-record.js';
import { evidenceKey, trustPointKey } from './record-key.js';
import { evidenceRepositoryInterface } from './evidence-repository-abi.js';
import { trustPointRegistryInterface } from './trust-point-registry-abi.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';

describe('on-chain records', () => {
  it('when building a trustpoint record, then key, hash word and type code are set', () => {
    // Arrange
    const trustPointHash = 'cd'.repeat(32);

    // Act
    const record = toTrustPointRecord({
      certId: CERT_ID,
      timestampMs: 5,
      trustPointHash,
      type: 'Signature',
    });

    // Assert
    expect(record).toEqual({
      key: trustPointKey(CERT_ID, 5),
      hash: `0x${trustPointHash}`,
      trustPointType: 2,
    });
  });

  it('when batching trustpoint records, then they encode as registerTrustPoints arguments', () => {
    const record = toTrustPointRecord({
      certId: CERT_ID,
      timestampMs: 5,
      trustPointHash: 'cd'.repeat(32),
      type: 'Evidence',
    });

    const data = trustPointRegistryInterface.encodeFunctionData('registerTrustPoints', [[record]]);

    const [decoded] = trustPointRegistryInterface.decodeFunctionData('registerTrustPoints', data);
    expect(decoded).toEqual([[record.key, record.hash, 0n]]);
  });

  it('when building an evidence record, then key and hash word are set', () => {
    const assetHash = 'ab'.repeat(32);

    const record = toEvidenceRecord({
      assetHash,
      timestampSeconds: 7,
      evidenceHash: 'ef'.repeat(32),
    });

    expect(record).toEqual({ key: evidenceKey(assetHash, 7), hash: `0x${'ef'.repeat(32)}` });
    expect(() =>
      evidenceRepositoryInterface.encodeFunctionData('registerEvidences', [[record]]),
    ).not.toThrow();
  });
});
