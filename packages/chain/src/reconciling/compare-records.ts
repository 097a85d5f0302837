import type { RecordKind } from '../anchoring/anchor-record.js';
import type { ChainRecord } from './registry-scan.js';

/** A record the service acknowledged, as its database holds it (`GET /admin/v1/records`). */
export interface DatabaseRecord {
  kind: RecordKind;
  /** 0x + 64 hex. */
  recordKey: string;
  /** 64 hex, without 0x. */
  hash: string;
  trustPointType: number | null;
  status: 'queued' | 'batched' | 'anchored' | 'failed';
  /** The registry it was anchored in; null before. */
  contract: string | null;
  transactionHash: string | null;
  blockNumber: number | null;
}

export type ProblemKind = 'missing' | 'mismatched' | 'doubled' | 'orphaned';

/** One disagreement between the database and the chain. */
export interface ReconcileProblem {
  kind: ProblemKind;
  network: string;
  recordKind: RecordKind;
  /** The whole key; for a record of a data batch with no row, its 16-byte tag without the type. */
  recordKey: string;
  /** What the database says is on chain (null for a record it does not know). */
  expectedHash: string | null;
  /** What the chain holds (null when it holds nothing). */
  chainHash: string | null;
  /** The registry concerned: the chain record's, else the one the database names. */
  contract: string | null;
  transactionHash: string | null;
  /** In words, for people: what differs. */
  detail: string;
}

export interface ReconcileCounts {
  /** Records compared with the chain: agree + missing + mismatched + doubled. */
  checked: number;
  agree: number;
  /** Not compared: still on their way (queued, batched, or mined after the blocks read). */
  pending: number;
  missing: number;
  mismatched: number;
  doubled: number;
  /** Chain records no database row knows (not among `checked`). */
  orphaned: number;
}

export interface NetworkReconciliation {
  network: string;
  /** ISO 8601, or null when every record was compared. */
  since: string | null;
  counts: ReconcileCounts;
  problems: ReconcileProblem[];
}

export interface CompareOptions {
  network: string;
  since?: Date;
  /** The first block read; records anchored before it are outside the comparison. */
  fromBlock?: number;
  /** The last block read; records anchored after it count as pending. */
  toBlock: number;
}

const prefixOf = (key: string) => BigInt(key) >> 130n;
const lookupKey = (kind: RecordKind, prefix: bigint) => `${kind}:${prefix.toString(16)}`;
const same = (a: string | null, b: string | null) =>
  a !== null && b !== null && a.toLowerCase() === b.toLowerCase();

/** Whether a chain record is the record the row describes, not just one under its key. */
function holdsSameRecord(row: DatabaseRecord, record: ChainRecord): boolean {
  return (
    record.hash === row.hash.toLowerCase() &&
    (record.trustPointType ?? 0) === (row.trustPointType ?? 0)
  );
}

/** The chain records that are the row's key: the whole key, or its 126-bit prefix in a data batch. */
function underKey(row: DatabaseRecord, candidates: readonly ChainRecord[]): ChainRecord[] {
  const key = row.recordKey.toLowerCase();
  return candidates.filter((record) => record.recordKey === undefined || record.recordKey === key);
}

function describeDifference(row: DatabaseRecord, record: ChainRecord): string {
  if (record.hash !== row.hash.toLowerCase()) return 'the chain holds another hash under its key';
  return `the chain holds it as type ${String(record.trustPointType)}, the database as type ${String(row.trustPointType)}`;
}

/**
 * Compares what the database says each record is with what the chain holds, for one network.
 *
 * - An anchored row (mined within the blocks read) agrees when its registry holds its hash and type
 *   under its key exactly once among the registries read; `missing` when its registry holds nothing
 *   under the key; `mismatched` when it holds another hash or type; `doubled` when the record is
 *   there and the key is held once more (a second batch, slot or registry).
 * - A `failed` row (the registry refused it) agrees when its key holds nothing; anything under its
 *   key is `mismatched` (the record that made it fail, or one written after all).
 * - Queued and batched rows, and rows mined after `toBlock`, are `pending`: not compared. Rows
 *   mined before `fromBlock` are outside the comparison.
 * - A chain record whose key no row has (in any state) is `orphaned`.
 *
 * Records of data batches carry only the key's top 126 bits; they are matched by those and the kind.
 */
export function compareRecords(
  rows: readonly DatabaseRecord[],
  chain: readonly ChainRecord[],
  options: CompareOptions,
): NetworkReconciliation {
  const byKey = new Map<string, ChainRecord[]>();
  for (const record of chain) {
    const key = lookupKey(record.kind, record.keyPrefix);
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [record]);
    else list.push(record);
  }
  const known = new Set<string>();
  const counts: ReconcileCounts = {
    checked: 0,
    agree: 0,
    pending: 0,
    missing: 0,
    mismatched: 0,
    doubled: 0,
    orphaned: 0,
  };
  const problems: ReconcileProblem[] = [];
  const problem = (
    kind: ProblemKind,
    row: DatabaseRecord,
    found: ChainRecord | undefined,
    detail: string,
  ) => {
    counts[kind] += 1;
    problems.push({
      kind,
      network: options.network,
      recordKind: row.kind,
      recordKey: row.recordKey,
      expectedHash: row.hash,
      chainHash: found?.hash ?? null,
      contract: found?.contract ?? row.contract,
      transactionHash: found?.transactionHash ?? row.transactionHash,
      detail,
    });
  };

  for (const row of rows) {
    const key = lookupKey(row.kind, prefixOf(row.recordKey));
    known.add(key);
    const mined = row.status === 'anchored' && row.blockNumber !== null;
    if (row.status === 'queued' || row.status === 'batched') {
      counts.pending += 1;
      continue;
    }
    if (mined && (row.blockNumber ?? 0) > options.toBlock) {
      counts.pending += 1;
      continue;
    }
    if (mined && options.fromBlock !== undefined && (row.blockNumber ?? 0) < options.fromBlock) {
      continue;
    }
    counts.checked += 1;
    const held = underKey(row, byKey.get(key) ?? []);
    if (row.status === 'failed') {
      const first = held[0];
      if (first === undefined) counts.agree += 1;
      else {
        problem(
          'mismatched',
          row,
          first,
          holdsSameRecord(row, first)
            ? 'the database says the registry refused it, yet the chain holds it'
            : 'the registry refused it: the chain holds another record under its key',
        );
      }
      continue;
    }
    const inItsRegistry =
      row.contract === null ? held : held.filter((record) => same(record.contract, row.contract));
    const match = inItsRegistry.find((record) => holdsSameRecord(row, record));
    if (match === undefined) {
      const other = inItsRegistry[0];
      if (other === undefined) {
        problem(
          'missing',
          row,
          undefined,
          held.length === 0
            ? 'not on chain'
            : `not in its registry (another registry holds ${String(held.length)} record(s) under its key)`,
        );
      } else problem('mismatched', row, other, describeDifference(row, other));
      continue;
    }
    const extra = held.find((record) => record !== match);
    if (extra !== undefined) {
      problem(
        'doubled',
        row,
        extra,
        `${String(held.length)} records under its key${extra.dataContract === undefined ? '' : ` (one in data batch ${extra.dataContract})`}`,
      );
      continue;
    }
    counts.agree += 1;
  }

  for (const record of chain) {
    if (known.has(lookupKey(record.kind, record.keyPrefix))) continue;
    counts.orphaned += 1;
    problems.push({
      kind: 'orphaned',
      network: options.network,
      recordKind: record.kind,
      recordKey: record.recordKey ?? `0x${(record.keyPrefix << 2n).toString(16).padStart(32, '0')}`,
      expectedHash: null,
      chainHash: record.hash,
      contract: record.contract,
      transactionHash: record.transactionHash,
      detail:
        record.dataContract === undefined
          ? 'no database row has its key'
          : `no database row has its key (data batch ${record.dataContract})`,
    });
  }

  return {
    network: options.network,
    since: options.since?.toISOString() ?? null,
    counts,
    problems,
  };
}

/** Whether every record compared agrees and the chain holds nothing the database does not know. */
export function allAgree(reconciliation: NetworkReconciliation): boolean {
  const { missing, mismatched, doubled, orphaned } = reconciliation.counts;
  return missing + mismatched + doubled + orphaned === 0;
}
