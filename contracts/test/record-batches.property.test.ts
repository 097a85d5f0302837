// Property: any set of records, written in any batching (slots and data contracts mixed), is found
// exactly, and any key not written reverts with exactly the 4 bytes of its NotFound error.
import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
} from '../src/record-batches';
import { deployBatchRegistries, digest, recordKey } from './fixtures';

const TRUSTPOINT_NOT_FOUND = '0x16fd89cc';
const EVIDENCE_NOT_FOUND = '0x09cea733';
const BASE_MS = 1_767_225_600_000;

interface Written {
  id: string;
  timestamp: number;
  key: string;
  hash: string;
  hex: string;
  type: number;
}

/** Revert data of a failed eth_call, as Hardhat's provider reports it. */
async function revertDataOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    const data = (error as { data?: string }).data;
    if (typeof data === 'string') return data;
    throw error;
  }
  throw new Error('the call did not revert');
}

// Records: distinct (id, timestamp) pairs within a few buckets, so batches share buckets.
const recordsArbitrary = (timestampSpan: number) =>
  fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 50 }),
      offset: fc.integer({ min: 0, max: timestampSpan }),
      type: fc.integer({ min: 0, max: 2 }),
      salt: fc.integer(),
    }),
    { minLength: 1, maxLength: 40, selector: (r) => `${String(r.id)}/${String(r.offset)}` },
  );
// How many records each successive write takes, and whether small ones go to slots.
const batchingArbitrary = fc.array(
  fc.record({ size: fc.integer({ min: 1, max: 15 }), slots: fc.boolean() }),
  {
    minLength: 1,
    maxLength: 40,
  },
);

describe('Batch registries: properties', () => {
  it('should find every trustpoint in any batching, and revert 0x16fd89cc for absent keys', async () => {
    await fc.assert(
      fc.asyncProperty(recordsArbitrary(5_000), batchingArbitrary, async (generated, batching) => {
        const { registry } = await loadFixture(deployBatchRegistries);
        const written: Written[] = generated.map((g) => {
          const id = `did:trustpoint:certid:${String(g.id)}`;
          const timestamp = BASE_MS + g.offset;
          const { word, hex } = digest(`${id} ${String(timestamp)} ${String(g.salt)}`);
          return { id, timestamp, key: recordKey(id, timestamp), hash: word, hex, type: g.type };
        });
        let next = 0;
        for (let b = 0; next < written.length; ++b) {
          const { size, slots } = batching[b % batching.length] ?? { size: 1, slots: false };
          const chunk = written.slice(next, next + size);
          next += size;
          const open = await Promise.all(
            chunk.map(async (r) => registry.slotBucketOpen(BigInt(r.timestamp) >> 10n)),
          );
          if (slots && open.every(Boolean)) {
            await registry.registerTrustPoints(
              chunk.map((r) => ({
                key: r.key,
                hash: r.hash,
                trustPointType: r.type,
                timestamp: r.timestamp,
              })),
            );
          } else {
            const { records, buckets } = encodeRecordBatch(chunk, TRUSTPOINT_BUCKET_BITS);
            await registry.registerTrustPointBatch(records, buckets);
          }
        }
        for (const r of written) {
          expect(await registry.getTrustPoint(r.id, r.timestamp)).to.deep.equal([
            r.hex,
            BigInt(r.type),
          ]);
          // The same certID a millisecond later, unless that one was written too.
          if (!written.some((w) => w.id === r.id && w.timestamp === r.timestamp + 1)) {
            expect(await revertDataOf(registry.getTrustPoint(r.id, r.timestamp + 1))).to.equal(
              TRUSTPOINT_NOT_FOUND,
            );
          }
        }
        expect(
          await revertDataOf(registry.getTrustPoint('did:trustpoint:certid:absent', BASE_MS)),
        ).to.equal(TRUSTPOINT_NOT_FOUND);
      }),
      { numRuns: 15 },
    );
  });

  it('should find every evidence in any batching, and revert 0x09cea733 for absent keys', async () => {
    const asset = digest('asset').hex;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: MAX_BATCH_RECORDS }), { minLength: 1, maxLength: 5 }),
        async (offsets, sizes) => {
          const { repository } = await loadFixture(deployBatchRegistries);
          const written = offsets.map((offset) => {
            const timestamp = 1_767_225_600 + offset;
            const { word, hex } = digest(`evidence ${String(timestamp)}`);
            return { key: recordKey(asset, timestamp), hash: word, hex, timestamp };
          });
          let next = 0;
          for (let b = 0; next < written.length; ++b) {
            const size = sizes[b % sizes.length] ?? 1;
            const { records, buckets } = encodeRecordBatch(
              written.slice(next, next + size),
              EVIDENCE_BUCKET_BITS,
            );
            next += size;
            await repository.registerEvidenceBatch(records, buckets);
          }
          for (const r of written)
            expect(await repository.getEvidence(asset, r.timestamp)).to.equal(r.hex);
          for (let offset = 0; offset <= 200; offset += 7) {
            if (offsets.includes(offset)) continue;
            expect(
              await revertDataOf(repository.getEvidence(asset, 1_767_225_600 + offset)),
            ).to.equal(EVIDENCE_NOT_FOUND);
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('should keep the first record of a key whatever later batches hold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        async (laterInSlots) => {
          const { registry } = await loadFixture(deployBatchRegistries);
          const id = 'did:trustpoint:certid:repeated';
          // A fresh bucket each run: whether the first write went to a slot or a data contract.
          const timestamp = BASE_MS + 1024 * 1000;
          const key = recordKey(id, timestamp);
          const first = digest('first');
          const { records, buckets } = encodeRecordBatch(
            [{ key, hash: first.word, timestamp }],
            TRUSTPOINT_BUCKET_BITS,
          );
          await registry.registerTrustPointBatch(records, buckets);
          for (const [i, slots] of laterInSlots.entries()) {
            const later = digest(`later ${String(i)}`).word;
            if (slots) {
              await expect(
                registry.registerTrustPoint(key, later, 0, timestamp),
              ).to.be.revertedWithCustomError(registry, 'SlotBucketClosed');
            } else {
              const again = encodeRecordBatch(
                [{ key, hash: later, type: 1, timestamp }],
                TRUSTPOINT_BUCKET_BITS,
              );
              await registry.registerTrustPointBatch(again.records, again.buckets);
            }
            expect(await registry.getTrustPoint(id, timestamp)).to.deep.equal([first.hex, 0n]);
          }
        },
      ),
      { numRuns: 10 },
    );
  });
});
