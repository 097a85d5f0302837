import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  EvidenceBatchRepository__factory,
  TRUSTPOINT_BUCKET_BITS,
  TrustPointBatchRegistry__factory,
} from '@trustpoint/registry-abi';
import { hexlify, randomBytes, Transaction, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { QueuedRecord } from '../src/anchoring/anchor-record.js';
import {
  contractOfRaw,
  encodeBatchCall,
  signBatchTransaction,
  type UnsignedBatchTransaction,
} from '../src/anchoring/batch-transaction.js';
import type { TransactionFees } from '../src/anchoring/fees.js';

const randomBigInt = (bytes: number) => BigInt(hexlify(randomBytes(bytes)));

/** Transactions of every shape a batch can take: both fee types, data of 0 to 24 KB, edge values. */
function transactions(): UnsignedBatchTransaction[] {
  const fees: TransactionFees[] = [
    { type: 2, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n },
    { type: 2, maxFeePerGas: randomBigInt(12), maxPriorityFeePerGas: 0n },
    { type: 0, gasPrice: 1n },
    { type: 0, gasPrice: randomBigInt(10) },
  ];
  const chainIds = [1, 137, 31337, 80002, 2_147_483_647];
  const dataSizes = [0, 1, 55, 56, 4 + 24_528, 24_576];
  const shapes: UnsignedBatchTransaction[] = [];
  for (const [index, fee] of fees.entries()) {
    for (const [size, dataSize] of dataSizes.entries()) {
      shapes.push({
        chainId: chainIds[(index + size) % chainIds.length] ?? 1,
        nonce: [0, 1, 127, 128, 65_535, 2 ** 40][size] ?? 0,
        to: Wallet.createRandom().address,
        data: hexlify(randomBytes(dataSize)),
        gasLimit: size === 0 ? 21_000n : randomBigInt(4),
        fees: fee,
      });
    }
  }
  return shapes;
}

describe('signing a batch transaction', () => {
  it('when any batch transaction is signed, then its bytes and hash are those ethers signs and reads', async () => {
    for (const unsigned of transactions()) {
      // Arrange
      const wallet = Wallet.createRandom();
      const { fees, ...fields } = unsigned;
      const expected = await wallet.signTransaction(Transaction.from({ ...fields, ...fees }));

      // Act
      const signed = signBatchTransaction(new Wallet(wallet.privateKey), unsigned);

      // Assert
      expect(signed.raw).toBe(expected);
      const parsed = Transaction.from(signed.raw);
      expect(signed.hash).toBe(parsed.hash);
      expect(parsed.from).toBe(wallet.address);
      expect(contractOfRaw(signed.raw)).toBe(unsigned.to);
    }
  });

  it('when a signed transaction has no recipient, then its contract is refused', async () => {
    // Arrange: a contract creation, which no batch is.
    const wallet = Wallet.createRandom();
    const raw = await wallet.signTransaction(
      Transaction.from({
        chainId: 1,
        nonce: 0,
        gasLimit: 100_000n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
        data: '0x6000',
      }),
    );

    // Act / Assert
    expect(() => contractOfRaw(raw)).toThrow(/no recipient/);
  });
});

describe('encoding a data batch call', () => {
  it('when a full batch of either kind is encoded, then the call is the one its registry interface encodes', () => {
    // Arrange
    const records: QueuedRecord[] = Array.from({ length: 511 }, (_, index) => ({
      id: index + 1,
      recordKey: hexlify(randomBytes(32)),
      hash: hexlify(randomBytes(32)).slice(2),
      trustPointType: index % 3,
      timestamp: 1_700_000_000_000 + index * 97,
    }));
    const asBatch = (bucketBits: number) =>
      encodeRecordBatch(
        records.map((record) => ({
          key: record.recordKey,
          hash: `0x${record.hash}`,
          type: record.trustPointType ?? 0,
          timestamp: record.timestamp ?? 0,
        })),
        bucketBits,
      );
    const trustpoints = asBatch(TRUSTPOINT_BUCKET_BITS);
    const evidences = asBatch(EVIDENCE_BUCKET_BITS);

    // Act
    const trustpointCall = encodeBatchCall('trustpoint', records, 'batches', 'data');
    const evidenceCall = encodeBatchCall('evidence', records, 'batches', 'data');

    // Assert
    expect(trustpointCall).toBe(
      TrustPointBatchRegistry__factory.createInterface().encodeFunctionData(
        'registerTrustPointBatch',
        [trustpoints.records, trustpoints.buckets],
      ),
    );
    expect(evidenceCall).toBe(
      EvidenceBatchRepository__factory.createInterface().encodeFunctionData(
        'registerEvidenceBatch',
        [evidences.records, evidences.buckets],
      ),
    );
  });
});
