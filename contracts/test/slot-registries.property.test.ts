// Properties of the slot registries (TrustPointRegistry, EvidenceRepository), read as an outside
// client reads them (raw eth_call over HTTP): any records written one by one or in batches of any
// size, re-sent or not, are found exactly; any key not written reverts with exactly the 4 bytes of
// its NotFound error; a record is never replaced.
import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import fc from 'fast-check';
import { deployReleaseRegistries, digest, recordKey } from './fixtures';
import { ethCall, serveHardhatNetwork, type JsonRpcEndpoint } from './json-rpc-server';

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

const recordsArbitrary = (types: number) =>
  fc.uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 20 }),
      offset: fc.integer({ min: 0, max: 50 }),
      type: fc.integer({ min: 0, max: types - 1 }),
      salt: fc.integer(),
    }),
    { minLength: 1, maxLength: 40, selector: (r) => `${String(r.id)}/${String(r.offset)}` },
  );

/** Successive writes: how many records each takes, one call per record or one batch, re-sends. */
const writesArbitrary = fc.array(
  fc.record({
    size: fc.integer({ min: 1, max: 12 }),
    single: fc.boolean(),
    resend: fc.constantFrom('none', 'identical', 'another hash'),
  }),
  { minLength: 1, maxLength: 20 },
);

type Writes = typeof writesArbitrary extends fc.Arbitrary<infer T> ? T : never;

async function writeAll(
  written: readonly Written[],
  writes: Writes,
  send: {
    one(r: Written): Promise<unknown>;
    many(rs: readonly Written[]): Promise<unknown>;
    /** Asserts that an attempt reverts with the registry's Conflict error. */
    conflict(attempt: Promise<unknown>): Promise<unknown>;
  },
) {
  let next = 0;
  for (let w = 0; next < written.length; ++w) {
    const step = writes[w % writes.length] ?? { size: 1, single: true, resend: 'none' };
    const chunk = written.slice(next, next + step.size);
    next += step.size;
    const write = (rs: readonly Written[]) =>
      step.single
        ? rs.reduce<Promise<unknown>>(async (previous, r) => {
            await previous;
            return send.one(r);
          }, Promise.resolve())
        : send.many(rs);
    await write(chunk);
    if (step.resend === 'identical') await write(chunk);
    if (step.resend === 'another hash') {
      const changed = chunk.map((r) => ({ ...r, hash: digest(`another ${r.key}`).word }));
      // Write-once: refused, the first hash stays.
      await send.conflict(write(changed));
    }
  }
}

describe('Slot registries: properties', () => {
  let node: JsonRpcEndpoint;

  before(async () => {
    node = await serveHardhatNetwork();
  });

  after(async () => {
    await node.close();
  });

  it('should find every trustpoint written in any way, and revert 0x16fd89cc for absent keys', async () => {
    await fc.assert(
      fc.asyncProperty(recordsArbitrary(3), writesArbitrary, async (generated, writes) => {
        const { slotRegistry: registry } = await loadFixture(deployReleaseRegistries);
        const to = await registry.getAddress();
        const written: Written[] = generated.map((g) => {
          const id = `did:trustpoint:certid:${String(g.id)}`;
          const timestamp = BASE_MS + g.offset;
          const { word, hex } = digest(`${id} ${String(timestamp)} ${String(g.salt)}`);
          return { id, timestamp, key: recordKey(id, timestamp), hash: word, hex, type: g.type };
        });
        await writeAll(written, writes, {
          one: (r) => registry.registerTrustPoint(r.key, r.hash, r.type),
          many: (rs) =>
            registry.registerTrustPoints(
              rs.map((r) => ({ key: r.key, hash: r.hash, trustPointType: r.type })),
            ),
          conflict: (attempt) =>
            expect(attempt).to.be.revertedWithCustomError(registry, 'TrustPointConflict'),
        });

        const lookUp = (id: string, timestamp: number) =>
          ethCall(node.url, {
            to,
            data: registry.interface.encodeFunctionData('getTrustPoint', [id, timestamp]),
          });
        for (const r of written) {
          const found = await lookUp(r.id, r.timestamp);
          if (!('returned' in found)) throw new Error(`${r.id} @ ${String(r.timestamp)} reverted`);
          expect(
            registry.interface.decodeFunctionResult('getTrustPoint', found.returned).toArray(),
          ).to.deep.equal([r.hex, BigInt(r.type)]);
          expect(await registry.trustPointOf(r.key)).to.deep.equal([r.hash, BigInt(r.type)]);
        }
        // Every certID at every millisecond of the span that holds no trustpoint of it.
        for (let id = 0; id <= 20; id += 3) {
          const certId = `did:trustpoint:certid:${String(id)}`;
          for (let timestamp = BASE_MS; timestamp <= BASE_MS + 50; timestamp += 7) {
            if (written.some((w) => w.id === certId && w.timestamp === timestamp)) continue;
            expect(await lookUp(certId, timestamp)).to.deep.equal({
              reverted: TRUSTPOINT_NOT_FOUND,
            });
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('should find every evidence written in any way, and revert 0x09cea733 for absent keys', async () => {
    const assets = Array.from({ length: 21 }, (_, i) => digest(`asset ${String(i)}`).hex);
    await fc.assert(
      fc.asyncProperty(recordsArbitrary(1), writesArbitrary, async (generated, writes) => {
        const { slotRepository: repository } = await loadFixture(deployReleaseRegistries);
        const to = await repository.getAddress();
        const written: Written[] = generated.map((g) => {
          const id = assets[g.id] ?? '';
          const timestamp = 1_767_225_600 + g.offset;
          const { word, hex } = digest(`${id} ${String(timestamp)} ${String(g.salt)}`);
          return { id, timestamp, key: recordKey(id, timestamp), hash: word, hex, type: 0 };
        });
        await writeAll(written, writes, {
          one: (r) => repository.registerEvidence(r.key, r.hash),
          many: (rs) => repository.registerEvidences(rs.map((r) => ({ key: r.key, hash: r.hash }))),
          conflict: (attempt) =>
            expect(attempt).to.be.revertedWithCustomError(repository, 'EvidenceConflict'),
        });

        const lookUp = (id: string, timestamp: number) =>
          ethCall(node.url, {
            to,
            data: repository.interface.encodeFunctionData('getEvidence', [id, timestamp]),
          });
        for (const r of written) {
          const found = await lookUp(r.id, r.timestamp);
          if (!('returned' in found)) throw new Error(`${r.id} @ ${String(r.timestamp)} reverted`);
          expect(
            repository.interface.decodeFunctionResult('getEvidence', found.returned)[0],
          ).to.equal(r.hex);
          expect(await repository.evidenceOf(r.key)).to.equal(r.hash);
        }
        for (const [i, id] of assets.entries()) {
          if (i % 3 !== 0) continue;
          for (let timestamp = 1_767_225_600; timestamp <= 1_767_225_650; timestamp += 7) {
            if (written.some((w) => w.id === id && w.timestamp === timestamp)) continue;
            expect(await lookUp(id, timestamp)).to.deep.equal({ reverted: EVIDENCE_NOT_FOUND });
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
