// Properties of the batch registries, read as an outside client reads them (raw eth_call over
// HTTP): any set of records, written in any batching (slots and data contracts mixed, across
// bucket edges, re-sent or not), is found exactly, and any key not written reverts with exactly
// the 4 bytes of its NotFound error.
import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import fc from 'fast-check';
import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/registry-abi';
import { deployReleaseRegistries, digest, recordKey } from './fixtures';
import { ethCall, serveHardhatNetwork, type JsonRpcEndpoint } from './json-rpc-server';

const TRUSTPOINT_NOT_FOUND = '0x16fd89cc';
const EVIDENCE_NOT_FOUND = '0x09cea733';
const BASE_MS = 1_767_225_600_000 - (1_767_225_600_000 % 1024); // the start of a bucket
const BASE_S = 1_767_225_600 - (1_767_225_600 % 16);

interface Written {
  id: string;
  timestamp: number;
  key: string;
  hash: string;
  hex: string;
  type: number;
}

/**
 * Distinct (id, timestamp) pairs over a few buckets, half of them within 3 units of a bucket edge,
 * so that batches share buckets and straddle their edges.
 */
const recordsArbitrary = (bucketBits: number, buckets: number, types: number) => {
  const size = 1 << bucketBits;
  const offset = fc.oneof(
    fc.integer({ min: 0, max: buckets * size - 1 }),
    fc
      .tuple(fc.integer({ min: 1, max: buckets - 1 }), fc.integer({ min: -3, max: 2 }))
      .map(([edge, delta]) => edge * size + delta),
  );
  return fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 30 }),
      offset,
      type: fc.integer({ min: 0, max: types - 1 }),
      salt: fc.integer(),
    }),
    { minLength: 1, maxLength: 40, selector: (r) => `${String(r.id)}/${String(r.offset)}` },
  );
};

/** How many records each successive write takes, whether small ones go to slots, re-sends. */
const batchingArbitrary = fc.array(
  fc.record({
    size: fc.integer({ min: 1, max: 15 }),
    slots: fc.boolean(),
    single: fc.boolean(),
    resend: fc.boolean(),
  }),
  { minLength: 1, maxLength: 20 },
);

type Batching = typeof batchingArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The writes of one batching: each chunk of records in slots when asked and open, else as data. */
async function writeInBatching(
  written: readonly Written[],
  batching: Batching,
  bucketBits: number,
  media: {
    slotOpen(bucket: bigint): Promise<boolean>;
    one(r: Written): Promise<unknown>;
    many(rs: readonly Written[]): Promise<unknown>;
    data(records: string, buckets: bigint[]): Promise<unknown>;
  },
) {
  let next = 0;
  for (let b = 0; next < written.length; ++b) {
    const step = batching[b % batching.length] ?? {
      size: 1,
      slots: false,
      single: false,
      resend: false,
    };
    const chunk = written.slice(next, next + step.size);
    next += step.size;
    const open = await Promise.all(
      chunk.map(async (r) => media.slotOpen(BigInt(r.timestamp) >> BigInt(bucketBits))),
    );
    const send =
      step.slots && open.every(Boolean)
        ? chunk.length === 1 && step.single
          ? () => media.one(chunk[0] as Written)
          : () => media.many(chunk)
        : () => {
            const { records, buckets } = encodeRecordBatch(chunk, bucketBits);
            return media.data(records, buckets);
          };
    await send();
    // A sender that signs the same write again after a crash changes nothing.
    if (step.resend) await send();
  }
}

describe('Batch registries: properties', () => {
  let node: JsonRpcEndpoint;

  before(async () => {
    node = await serveHardhatNetwork();
  });

  after(async () => {
    await node.close();
  });

  it('should find every trustpoint in any batching, and revert 0x16fd89cc for absent keys', async () => {
    await fc.assert(
      fc.asyncProperty(
        recordsArbitrary(TRUSTPOINT_BUCKET_BITS, 5, 3),
        batchingArbitrary,
        async (generated, batching) => {
          const { batchRegistry: registry } = await loadFixture(deployReleaseRegistries);
          const to = await registry.getAddress();
          const written: Written[] = generated.map((g) => {
            const id = `did:trustpoint:certid:${String(g.id)}`;
            const timestamp = BASE_MS + g.offset;
            const { word, hex } = digest(`${id} ${String(timestamp)} ${String(g.salt)}`);
            return { id, timestamp, key: recordKey(id, timestamp), hash: word, hex, type: g.type };
          });
          await writeInBatching(written, batching, TRUSTPOINT_BUCKET_BITS, {
            slotOpen: (bucket) => registry.slotBucketOpen(bucket),
            one: (r) => registry.registerTrustPoint(r.key, r.hash, r.type, r.timestamp),
            many: (rs) =>
              registry.registerTrustPoints(
                rs.map((r) => ({
                  key: r.key,
                  hash: r.hash,
                  trustPointType: r.type,
                  timestamp: r.timestamp,
                })),
              ),
            data: (records, buckets) => registry.registerTrustPointBatch(records, buckets),
          });

          const lookUp = (id: string, timestamp: number) =>
            ethCall(node.url, {
              to,
              data: registry.interface.encodeFunctionData('getTrustPoint', [id, timestamp]),
            });
          const isWritten = (id: string, timestamp: number) =>
            written.some((w) => w.id === id && w.timestamp === timestamp);
          for (const r of written) {
            const found = await lookUp(r.id, r.timestamp);
            if (!('returned' in found))
              throw new Error(`${r.id} @ ${String(r.timestamp)} reverted`);
            expect(
              registry.interface.decodeFunctionResult('getTrustPoint', found.returned).toArray(),
            ).to.deep.equal([r.hex, BigInt(r.type)]);
            // The same certID a millisecond off either way, and another certID at the same time.
            for (const [id, timestamp] of [
              [r.id, r.timestamp + 1],
              [r.id, r.timestamp - 1],
              [`${r.id}0`, r.timestamp],
            ] as const) {
              if (isWritten(id, timestamp)) continue;
              expect(await lookUp(id, timestamp)).to.deep.equal({ reverted: TRUSTPOINT_NOT_FOUND });
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('should find every evidence in any batching, and revert 0x09cea733 for absent keys', async () => {
    const assets = [0, 1, 2].map((i) => digest(`asset ${String(i)}`).hex);
    await fc.assert(
      fc.asyncProperty(
        recordsArbitrary(EVIDENCE_BUCKET_BITS, 12, 1),
        batchingArbitrary,
        async (generated, batching) => {
          const { batchRepository: repository } = await loadFixture(deployReleaseRegistries);
          const to = await repository.getAddress();
          const written: Written[] = generated.map((g) => {
            const id = assets[g.id % assets.length] ?? '';
            // Draws naming one asset at one time are one key: the first of them is written.
            const timestamp = BASE_S + g.offset;
            const { word, hex } = digest(`${id} ${String(timestamp)} ${String(g.salt)}`);
            return { id, timestamp, key: recordKey(id, timestamp), hash: word, hex, type: 0 };
          });
          const records = written.filter((r, i) => written.findIndex((w) => w.key === r.key) === i);
          await writeInBatching(records, batching, EVIDENCE_BUCKET_BITS, {
            slotOpen: (bucket) => repository.slotBucketOpen(bucket),
            one: (r) => repository.registerEvidence(r.key, r.hash, r.timestamp),
            many: (rs) =>
              repository.registerEvidences(
                rs.map((r) => ({ key: r.key, hash: r.hash, timestamp: r.timestamp })),
              ),
            data: (data, buckets) => repository.registerEvidenceBatch(data, buckets),
          });

          const lookUp = (id: string, timestamp: number) =>
            ethCall(node.url, {
              to,
              data: repository.interface.encodeFunctionData('getEvidence', [id, timestamp]),
            });
          for (const r of records) {
            const found = await lookUp(r.id, r.timestamp);
            if (!('returned' in found))
              throw new Error(`${r.id} @ ${String(r.timestamp)} reverted`);
            expect(
              repository.interface.decodeFunctionResult('getEvidence', found.returned)[0],
            ).to.equal(r.hex);
          }
          // Every asset at every second of the span that holds no evidence of it.
          for (const id of assets) {
            for (let timestamp = BASE_S; timestamp < BASE_S + 12 * 16; timestamp += 11) {
              if (records.some((w) => w.id === id && w.timestamp === timestamp)) continue;
              expect(await lookUp(id, timestamp)).to.deep.equal({ reverted: EVIDENCE_NOT_FOUND });
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('should keep the first record of a key whatever later batches hold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (laterInSlots, firstInSlot) => {
          const { batchRegistry: registry } = await loadFixture(deployReleaseRegistries);
          const id = 'did:trustpoint:certid:repeated';
          const timestamp = BASE_MS + 1024 * 1000 + 17;
          const key = recordKey(id, timestamp);
          const first = digest('first');
          if (firstInSlot) await registry.registerTrustPoint(key, first.word, 0, timestamp);
          else {
            const { records, buckets } = encodeRecordBatch(
              [{ key, hash: first.word, timestamp }],
              TRUSTPOINT_BUCKET_BITS,
            );
            await registry.registerTrustPointBatch(records, buckets);
          }
          for (const [i, slots] of laterInSlots.entries()) {
            const later = digest(`later ${String(i)}`).word;
            if (slots) {
              // A slot record under a key already held: a conflict, or a bucket a data batch closed.
              const open = await registry.slotBucketOpen(BigInt(timestamp) >> 10n);
              await expect(
                registry.registerTrustPoint(key, later, 0, timestamp),
              ).to.be.revertedWithCustomError(
                registry,
                open ? 'TrustPointConflict' : 'SlotBucketClosed',
              );
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
      { numRuns: 15 },
    );
  });

  it('should put batch n at the address of the contract the registry creates with nonce n + 1', async () => {
    const { batchRegistry: registry } = await loadFixture(deployReleaseRegistries);
    const from = await registry.getAddress();
    // Batch numbers are 32-bit: nonces of one to four bytes, each size's edges drawn often.
    const edges = [0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000, 0xffffffff];
    const nonce = fc.oneof(
      fc.integer({ min: 1, max: 0xffffffff }),
      fc.constantFrom(...edges).chain((e) => fc.integer({ min: e - 2, max: e + 2 })),
    );
    await fc.assert(
      fc.asyncProperty(
        nonce.filter((n) => n >= 1 && n <= 0xffffffff),
        async (n) => {
          expect(await registry.batchAddress(n - 1)).to.equal(
            ethers.getCreateAddress({ from, nonce: n }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('should take batches of any size up to the largest, each record found', async () => {
    const asset = digest('asset').hex;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: MAX_BATCH_RECORDS }), { minLength: 1, maxLength: 2 }),
        async (sizes) => {
          const { batchRepository: repository } = await loadFixture(deployReleaseRegistries);
          let timestamp = BASE_S;
          for (const size of sizes) {
            const rs = Array.from({ length: size }, () => {
              timestamp += 1;
              const { word, hex } = digest(`evidence ${String(timestamp)}`);
              return { key: recordKey(asset, timestamp), hash: word, hex, timestamp };
            });
            const { records, buckets } = encodeRecordBatch(rs, EVIDENCE_BUCKET_BITS);
            await repository.registerEvidenceBatch(records, buckets);
            // The first, the last and a few between: a binary search's edges.
            for (const r of [rs[0], rs[size >> 1], rs[size - 1], rs[(size * 3) >> 2]]) {
              if (r) expect(await repository.getEvidence(asset, r.timestamp)).to.equal(r.hex);
            }
          }
          expect(await repository.batchCount()).to.equal(BigInt(sizes.length));
        },
      ),
      { numRuns: 8 },
    );
  });
});
