import {
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
} from '@trustpoint/registry-abi';
import type { RecordKind } from '../anchoring/anchor-record.js';
import { JsonRpcClient, JsonRpcError } from '../rpc/json-rpc-client.js';

/**
 * One record as the chain holds it. Event and slot records carry their whole key; the records of a
 * data batch only the key's top 126 bits (`keyPrefix`), which is what the registries find them by.
 */
export interface ChainRecord {
  kind: RecordKind;
  /** 0x + 64 hex, when the chain holds the whole key. */
  recordKey: string | undefined;
  /** `BigInt(key) >> 130n`. */
  keyPrefix: bigint;
  /** 64 lowercase hex, without 0x. */
  hash: string;
  /** 0-2 for trustpoints; null for evidences. */
  trustPointType: number | null;
  /** The registry (lowercase). */
  contract: string;
  transactionHash: string;
  blockNumber: number;
  /** The data contract holding it, for a record of a data batch (lowercase). */
  dataContract?: string;
}

export interface RegistryScanOptions {
  rpcUrl: string;
  /** Registries of either generation and kind; each is told apart by the events it emits. */
  contracts: readonly string[];
  /** First block to read; default: the first block where one of the contracts has code. */
  fromBlock?: number;
  /** Last block to read (inclusive). */
  toBlock: number;
  /** Blocks per `eth_getLogs`; halved when a node refuses a range. Default 10,000. */
  blockRange?: number;
  /** `eth_getCode` calls in flight for data batches. Default 8. */
  concurrency?: number;
  timeoutMs?: number;
}

const trustPointRegistry = TrustPointRegistry__factory.createInterface();
const evidenceRepository = EvidenceRepository__factory.createInterface();
const trustPointBatchRegistry = TrustPointBatchRegistry__factory.createInterface();
const evidenceBatchRepository = EvidenceBatchRepository__factory.createInterface();

/** Topic 0 of every event that writes a record, in both generations of registries. */
const TOPIC = {
  trustPointRegistered: trustPointRegistry.getEvent('TrustPointRegistered').topicHash,
  evidenceRegistered: evidenceRepository.getEvent('EvidenceRegistered').topicHash,
  trustPointRecorded: trustPointBatchRegistry.getEvent('TrustPointRecorded').topicHash,
  evidenceRecorded: evidenceBatchRepository.getEvent('EvidenceRecorded').topicHash,
  trustPointBatchRecorded: trustPointBatchRegistry.getEvent('TrustPointBatchRecorded').topicHash,
  evidenceBatchRecorded: evidenceBatchRepository.getEvent('EvidenceBatchRecorded').topicHash,
} as const;
const RECORD_TOPICS = Object.values(TOPIC);

/** Bytes of one record of a data batch: the 16-byte tag, then the hash. */
const RECORD_BYTES = 48;

interface Log {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
}

/** The 32-byte word `index` of ABI-encoded data, as 0x + 64 hex. */
const word = (data: string, index: number) =>
  `0x${data.slice(2 + index * 64, 2 + (index + 1) * 64)}`;
const bare = (hex: string) => hex.slice(2).toLowerCase();
const prefixOf = (key: string) => BigInt(key) >> 130n;

/** A data batch named by its event, whose records are read from its contract's code. */
interface DataBatch {
  kind: RecordKind;
  contract: string;
  dataContract: string;
  count: number;
  transactionHash: string;
  blockNumber: number;
}

/** The records a data contract's code holds: after its STOP byte, 48 bytes each. */
export function decodeDataBatch(code: string, batch: Omit<DataBatch, 'count'>): ChainRecord[] {
  const hex = code.startsWith('0x') ? code.slice(2) : code;
  const records: ChainRecord[] = [];
  for (let at = 2; at + RECORD_BYTES * 2 <= hex.length; at += RECORD_BYTES * 2) {
    const tag = BigInt(`0x${hex.slice(at, at + 32)}`);
    records.push({
      kind: batch.kind,
      recordKey: undefined,
      keyPrefix: tag >> 2n,
      hash: hex.slice(at + 32, at + 96).toLowerCase(),
      trustPointType: batch.kind === 'trustpoint' ? Number(tag & 3n) : null,
      contract: batch.contract,
      transactionHash: batch.transactionHash,
      blockNumber: batch.blockNumber,
      dataContract: batch.dataContract,
    });
  }
  return records;
}

/** A record event as a record; a data batch event as the batch to read. */
function readLog(log: Log): ChainRecord | DataBatch | undefined {
  const common = {
    contract: log.address.toLowerCase(),
    transactionHash: log.transactionHash,
    blockNumber: Number(log.blockNumber),
  };
  const fromKey = (kind: RecordKind, key: string, hash: string, type: number | null) => ({
    ...common,
    kind,
    recordKey: key.toLowerCase(),
    keyPrefix: prefixOf(key),
    hash: bare(hash),
    trustPointType: type,
  });
  switch (log.topics[0]) {
    case TOPIC.trustPointRegistered:
      return fromKey(
        'trustpoint',
        log.topics[1] ?? '0x0',
        log.topics[2] ?? '0x0',
        Number(word(log.data, 0)),
      );
    case TOPIC.evidenceRegistered:
      return fromKey('evidence', log.topics[1] ?? '0x0', log.topics[2] ?? '0x0', null);
    case TOPIC.trustPointRecorded:
      return fromKey('trustpoint', word(log.data, 0), word(log.data, 1), Number(word(log.data, 2)));
    case TOPIC.evidenceRecorded:
      return fromKey('evidence', word(log.data, 0), word(log.data, 1), null);
    case TOPIC.trustPointBatchRecorded:
    case TOPIC.evidenceBatchRecorded:
      return {
        ...common,
        kind: log.topics[0] === TOPIC.trustPointBatchRecorded ? 'trustpoint' : 'evidence',
        dataContract: `0x${word(log.data, 0).slice(-40)}`.toLowerCase(),
        count: Number(word(log.data, 1)),
      };
    default:
      return undefined;
  }
}

const isDataBatch = (read: ChainRecord | DataBatch): read is DataBatch => 'count' in read;
const hexBlock = (block: number) => `0x${block.toString(16)}`;

/** Whether a node refused a log query for its size (too many blocks or results), not for good. */
function isRangeRefusal(error: unknown): boolean {
  if (!(error instanceof JsonRpcError)) return false;
  return (
    error.code === -32005 ||
    /range|too many|limit|exceed|too large|10000 results/i.test(error.message)
  );
}

/**
 * The first block at which `address` has code (its deployment), found by bisecting
 * `eth_getCode` over past blocks; 0 when the node keeps no past state to answer with.
 */
export async function deploymentBlock(
  client: JsonRpcClient,
  address: string,
  toBlock: number,
): Promise<number> {
  const hasCode = async (block: number) =>
    (await client.call<string>('eth_getCode', [address, hexBlock(block)])) !== '0x';
  try {
    if (!(await hasCode(toBlock))) return toBlock + 1;
    let low = 0;
    let high = toBlock;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (await hasCode(middle)) high = middle;
      else low = middle + 1;
    }
    return low;
  } catch (error) {
    if (error instanceof JsonRpcError) return 0;
    throw error;
  }
}

/** The first block whose timestamp is at or after `time` (`toBlock + 1` when none is). */
export async function firstBlockAtOrAfter(
  client: JsonRpcClient,
  time: Date,
  toBlock: number,
): Promise<number> {
  const seconds = Math.floor(time.getTime() / 1_000);
  const timestampOf = async (block: number) => {
    const header = await client.call<{ timestamp: string } | null>('eth_getBlockByNumber', [
      hexBlock(block),
      false,
    ]);
    return header === null ? Number.POSITIVE_INFINITY : Number(header.timestamp);
  };
  let low = 0;
  let high = toBlock + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await timestampOf(middle)) >= seconds) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Runs `work` over `items` with at most `limit` in flight, keeping their order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Every record the registries hold between two blocks, read the way anyone can: their events with
 * `eth_getLogs` over block ranges (one query for all the contracts), and the records of each data
 * batch from its contract's code (`eth_getCode`). No call per record, so a million records cost a
 * few thousand requests. Both generations of registries are read: `TrustPointRegistered` /
 * `EvidenceRegistered`, the batch registries' slot events (`TrustPointRecorded`,
 * `EvidenceRecorded`) and their data batches (`TrustPointBatchRecorded`, `EvidenceBatchRecorded`).
 */
export async function scanRegistries(options: RegistryScanOptions): Promise<ChainRecord[]> {
  const contracts = [...new Set(options.contracts.map((contract) => contract.toLowerCase()))];
  if (contracts.length === 0) return [];
  const client = new JsonRpcClient(options.rpcUrl, options.timeoutMs ?? 30_000);
  const fromBlock =
    options.fromBlock ??
    Math.min(
      ...(await Promise.all(
        contracts.map((contract) => deploymentBlock(client, contract, options.toBlock)),
      )),
    );
  const records: ChainRecord[] = [];
  const batches: DataBatch[] = [];
  let range = Math.max(1, options.blockRange ?? 10_000);
  for (let start = fromBlock; start <= options.toBlock;) {
    const end = Math.min(options.toBlock, start + range - 1);
    let logs: Log[];
    try {
      logs = await client.call<Log[]>('eth_getLogs', [
        {
          address: contracts,
          topics: [RECORD_TOPICS],
          fromBlock: hexBlock(start),
          toBlock: hexBlock(end),
        },
      ]);
    } catch (error) {
      if (range > 1 && isRangeRefusal(error)) {
        range = Math.max(1, Math.floor(range / 2));
        continue;
      }
      throw error;
    }
    for (const log of logs) {
      const read = readLog(log);
      if (read === undefined) continue;
      if (isDataBatch(read)) batches.push(read);
      else records.push(read);
    }
    start = end + 1;
  }
  const batchRecords = await mapLimited(batches, options.concurrency ?? 8, async (batch) => {
    const code = await client.call<string>('eth_getCode', [batch.dataContract, 'latest']);
    const decoded = decodeDataBatch(code, batch);
    if (decoded.length !== batch.count) {
      throw new Error(
        `data batch ${batch.dataContract} of ${batch.contract} holds ${String(decoded.length)} records, its event says ${String(batch.count)}`,
      );
    }
    return decoded;
  });
  return records.concat(...batchRecords);
}
