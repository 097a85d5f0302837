import { describe, expect, it } from 'vitest';

import { evidenceRepositoryInterface } from './evidence-repository-abi.js';
import {
  evidenceExplorerVerification,
  explorerVerificationSchema,
  trustPointExplorerVerification,
} from './explorer-verification.js';
import { trustPointRegistryInterface } from './trust-point-registry-abi.js';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const TRANSACTION = `0x${'ab'.repeat(32)}`;
const HASH = 'cd'.repeat(32);
const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';

function namesAndTypes(params: readonly { name: string; type: string }[]) {
  return params.map(({ name, type }) => ({ name, type }));
}

describe('explorer verification (method 2)', () => {
  it('when a trustpoint is anchored on a network with an explorer, then it links the transaction and the read page and lists what to type', () => {
    const check = trustPointExplorerVerification({
      explorerUrl: 'https://sepolia.etherscan.io',
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      certId: CERT_ID,
      timestamp: 1767225600123,
      hash: HASH,
      type: 'Revocation',
    });

    expect(check).toEqual({
      transactionUrl: `https://sepolia.etherscan.io/tx/${TRANSACTION}`,
      contractUrl: `https://sepolia.etherscan.io/address/${CONTRACT}#readContract`,
      function: 'getTrustPoint',
      inputs: [
        { name: 'certId', type: 'string', value: CERT_ID },
        { name: 'timestamp', type: 'uint256', value: '1767225600123' },
      ],
      expected: [
        { name: 'hash', type: 'string', value: HASH },
        { name: 'trustPointType', type: 'uint8', value: '1' },
      ],
    });
    expect(explorerVerificationSchema.parse(check)).toEqual(check);
  });

  it('when the explorer lives under a path with a trailing slash, then links keep the path and add no double slash', () => {
    const check = evidenceExplorerVerification({
      explorerUrl: 'https://explorer.example.org/besu/',
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      assetHash: HASH,
      timestamp: 1767225600,
      hash: 'ef'.repeat(32),
    });

    expect(check?.transactionUrl).toBe(`https://explorer.example.org/besu/tx/${TRANSACTION}`);
    expect(check?.contractUrl).toBe(
      `https://explorer.example.org/besu/address/${CONTRACT}#readContract`,
    );
    expect(check?.inputs).toEqual([
      { name: 'assetHash', type: 'string', value: HASH },
      { name: 'timestamp', type: 'uint256', value: '1767225600' },
    ]);
    expect(check?.expected).toEqual([{ name: 'hash', type: 'string', value: 'ef'.repeat(32) }]);
  });

  it('when the network has no explorer or the record is not anchored yet, then there is nothing to check there', () => {
    const record = {
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      assetHash: HASH,
      timestamp: 1,
      hash: HASH,
    };

    expect(evidenceExplorerVerification({ ...record, explorerUrl: undefined })).toBeUndefined();
    expect(
      evidenceExplorerVerification({
        ...record,
        explorerUrl: 'https://amoy.polygonscan.com',
        transactionHash: null,
      }),
    ).toBeUndefined();
  });

  it('when a person types the inputs, then they are the read functions fields by name and type, in order, and the expected values their results', () => {
    const trustpoint = trustPointExplorerVerification({
      explorerUrl: 'https://sepolia.etherscan.io',
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      certId: CERT_ID,
      timestamp: 1,
      hash: HASH,
      type: 'Evidence',
    });
    const evidence = evidenceExplorerVerification({
      explorerUrl: 'https://sepolia.etherscan.io',
      smartContract: CONTRACT,
      transactionHash: TRANSACTION,
      assetHash: HASH,
      timestamp: 1,
      hash: HASH,
    });
    const getTrustPoint = trustPointRegistryInterface.getFunction('getTrustPoint');
    const getEvidence = evidenceRepositoryInterface.getFunction('getEvidence');

    expect(namesAndTypes(trustpoint?.inputs ?? [])).toEqual(
      namesAndTypes(getTrustPoint?.inputs ?? []),
    );
    expect(namesAndTypes(trustpoint?.expected ?? [])).toEqual(
      namesAndTypes(getTrustPoint?.outputs ?? []),
    );
    expect(namesAndTypes(evidence?.inputs ?? [])).toEqual(namesAndTypes(getEvidence?.inputs ?? []));
    expect(namesAndTypes(evidence?.expected ?? [])).toEqual(
      namesAndTypes(getEvidence?.outputs ?? []),
    );
  });
});
