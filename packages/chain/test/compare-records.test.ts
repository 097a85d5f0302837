import { describe, expect, it } from 'vitest';
import {
  allAgree,
  compareRecords,
  type DatabaseRecord,
} from '../src/reconciling/compare-records.js';
import type { ChainRecord } from '../src/reconciling/registry-scan.js';

const OLD = '0x' + '1'.repeat(40);
const NEW = '0x' + '2'.repeat(40);
const key = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
const hash = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

function row(n: number, overrides: Partial<DatabaseRecord> = {}): DatabaseRecord {
  return {
    kind: 'trustpoint',
    recordKey: key(n),
    hash: hash(n),
    trustPointType: 0,
    status: 'anchored',
    contract: OLD,
    transactionHash: `0x${'a'.repeat(64)}`,
    blockNumber: 10,
    ...overrides,
  };
}

/** The row's record as the chain holds it: by event (whole key) or in a data batch (prefix). */
function onChain(
  n: number,
  overrides: Partial<ChainRecord> = {},
  inDataBatch = false,
): ChainRecord {
  return {
    kind: 'trustpoint',
    recordKey: inDataBatch ? undefined : key(n),
    keyPrefix: BigInt(key(n)) >> 130n,
    hash: hash(n),
    trustPointType: 0,
    contract: OLD,
    transactionHash: `0x${'b'.repeat(64)}`,
    blockNumber: 10,
    ...(inDataBatch ? { dataContract: '0x' + '3'.repeat(40) } : {}),
    ...overrides,
  };
}

const compare = (rows: DatabaseRecord[], chain: ChainRecord[], toBlock = 100) =>
  compareRecords(rows, chain, { network: '31337', toBlock });

describe('compareRecords', () => {
  it('when every anchored row is on chain once in its registry, by event or in a data batch, then all agree', () => {
    // Act
    const result = compare(
      [
        row(1),
        row(2, { contract: NEW, trustPointType: 2 }),
        row(3, { kind: 'evidence', trustPointType: null }),
      ],
      [
        onChain(1),
        onChain(2, { contract: NEW, trustPointType: 2 }, true),
        onChain(3, { kind: 'evidence', trustPointType: null }),
      ],
    );

    // Assert
    expect(result.counts).toEqual({
      checked: 3,
      agree: 3,
      pending: 0,
      missing: 0,
      mismatched: 0,
      doubled: 0,
      orphaned: 0,
    });
    expect(result.problems).toEqual([]);
    expect(allAgree(result)).toBe(true);
  });

  it('when an anchored row is not on chain, then it is missing with the hash expected', () => {
    // Act
    const result = compare([row(1)], []);

    // Assert
    expect(result.counts.missing).toBe(1);
    expect(result.problems).toEqual([
      expect.objectContaining({
        kind: 'missing',
        recordKey: key(1),
        expectedHash: hash(1),
        chainHash: null,
        contract: OLD,
      }),
    ]);
    expect(allAgree(result)).toBe(false);
  });

  it('when the key holds another hash or another type, then the row is mismatched with both hashes', () => {
    // Act
    const result = compare(
      [row(1), row(2, { trustPointType: 1 })],
      [onChain(1, { hash: hash(9) }), onChain(2, { trustPointType: 2 }, true)],
    );

    // Assert
    expect(result.counts).toMatchObject({ checked: 2, mismatched: 2, agree: 0 });
    expect(result.problems[0]).toMatchObject({ expectedHash: hash(1), chainHash: hash(9) });
    expect(result.problems[1]?.detail).toContain('type 2');
  });

  it('when a record is in two data batches or two registries, then it is doubled, naming the second copy', () => {
    // Act
    const result = compare(
      [row(1), row(2)],
      [
        onChain(1, {}, true),
        onChain(1, { transactionHash: `0x${'c'.repeat(64)}` }, true),
        onChain(2),
        onChain(2, { contract: NEW }),
      ],
    );

    // Assert
    expect(result.counts).toMatchObject({ checked: 2, doubled: 2, agree: 0 });
    expect(result.problems[0]).toMatchObject({
      kind: 'doubled',
      transactionHash: `0x${'c'.repeat(64)}`,
    });
    expect(result.problems[1]).toMatchObject({ kind: 'doubled', contract: NEW });
  });

  it('when the chain holds records no row knows, then each is orphaned, a data batch one by its tag', () => {
    // Act
    const result = compare([row(1)], [onChain(1), onChain(7), onChain(8, {}, true)]);

    // Assert
    expect(result.counts).toMatchObject({ checked: 1, agree: 1, orphaned: 2 });
    expect(result.problems.map((problem) => [problem.kind, problem.recordKey])).toEqual([
      ['orphaned', key(7)],
      // The key's top 16 bytes, its low 2 bits (the type's place) cleared.
      ['orphaned', `0x${'08'.repeat(16)}`],
    ]);
  });

  it('when rows are queued, batched or mined after the blocks read, then they are pending, not compared, and their chain records are no orphans', () => {
    // Act
    const result = compare(
      [
        row(1, { status: 'queued', contract: null, blockNumber: null }),
        row(2, { status: 'batched', contract: null, blockNumber: null }),
        row(3, { blockNumber: 101 }),
      ],
      [onChain(2)],
      100,
    );

    // Assert
    expect(result.counts).toMatchObject({ checked: 0, pending: 3, orphaned: 0 });
    expect(allAgree(result)).toBe(true);
  });

  it('when a failed row has nothing under its key, then it agrees; when the chain holds a record there, then it is mismatched', () => {
    // Act
    const result = compare(
      [
        row(1, { status: 'failed', blockNumber: null }),
        row(2, { status: 'failed', blockNumber: null }),
      ],
      [onChain(2, { hash: hash(5) })],
    );

    // Assert
    expect(result.counts).toMatchObject({ checked: 2, agree: 1, mismatched: 1 });
    expect(result.problems[0]).toMatchObject({ recordKey: key(2), chainHash: hash(5) });
  });

  it('when rows were mined before the first block read (since), then they are left out', () => {
    // Act
    const result = compareRecords(
      [row(1, { blockNumber: 5 }), row(2, { blockNumber: 20 })],
      [onChain(2)],
      {
        network: '31337',
        fromBlock: 10,
        toBlock: 100,
        since: new Date('2026-01-01T00:00:00Z'),
      },
    );

    // Assert
    expect(result.counts).toMatchObject({ checked: 1, agree: 1, missing: 0 });
    expect(result.since).toBe('2026-01-01T00:00:00.000Z');
  });

  it('when a row is on chain only in another registry than it names, then it is missing there and the copy is no orphan', () => {
    // Act
    const result = compare([row(1)], [onChain(1, { contract: NEW })]);

    // Assert
    expect(result.counts).toMatchObject({ missing: 1, orphaned: 0 });
    expect(result.problems[0]?.detail).toContain('another registry');
  });
});
