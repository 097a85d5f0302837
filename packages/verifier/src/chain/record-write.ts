import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';

import { isHash32, isQuantity, jsonRpcCall } from '../rpc/json-rpc-call.js';
import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';

/**
 * When a record was written, by the chain's clock: the receipt of the transaction a record names
 * must show that this transaction wrote this record to this registry (an event of the registry
 * naming the record, or a data batch whose code holds it), and its block gives the time. A
 * transaction that wrote nothing (a batch sent again after a crash) proves no time.
 */

const topic = (signature: string): string =>
  `0x${bytesToHex(keccak_256(new TextEncoder().encode(signature)))}`;

/** Events of every registry generation that name one record, and those of data batches. */
export const RECORD_EVENT_TOPICS = {
  trustPoint: {
    /** Batch registries: `TrustPointRecorded(bytes32 key, bytes32 hash, uint8 type)`, unindexed. */
    slot: topic('TrustPointRecorded(bytes32,bytes32,uint8)'),
    /** Slot registries: `TrustPointRegistered(bytes32 indexed key, bytes32 indexed hash, uint8 type)`. */
    indexed: topic('TrustPointRegistered(bytes32,bytes32,uint8)'),
    batch: topic('TrustPointBatchRecorded(uint256,address,uint256)'),
  },
  evidence: {
    slot: topic('EvidenceRecorded(bytes32,bytes32)'),
    indexed: topic('EvidenceRegistered(bytes32,bytes32)'),
    batch: topic('EvidenceBatchRecorded(uint256,address,uint256)'),
  },
} as const;

export interface RecordToFind {
  kind: 'trustPoint' | 'evidence';
  /** The registry the record was read from. */
  registry: string;
  /** bytes32 key, 0x-prefixed. */
  key: string;
  /** 64 lowercase hex, no 0x. */
  hash: string;
  /** Trustpoint type code (0 for evidences). */
  type: number;
}

export type RecordWrite =
  | {
      outcome: 'written';
      blockNumber: number;
      blockHash: string;
      /** Seconds since the epoch: the block's timestamp. */
      blockTime: number;
      node: string;
    }
  | { outcome: 'notWritten'; detail: string; node: string }
  | { outcome: 'unreachable'; detail: string };

interface Log {
  address?: unknown;
  topics?: unknown;
  data?: unknown;
}

const words = (data: string): string[] => {
  const hex = data.slice(2);
  const out: string[] = [];
  for (let at = 0; at + 64 <= hex.length; at += 64) out.push(hex.slice(at, at + 64).toLowerCase());
  return out;
};

/** Whether the code of a data batch (`0x00` then 48-byte records) holds the record. */
export function dataBatchHolds(
  code: string,
  record: Pick<RecordToFind, 'key' | 'hash' | 'type'>,
): boolean {
  const hex = code.slice(2).toLowerCase();
  if (!hex.startsWith('00')) return false;
  const keyTop = BigInt(record.key) >> 128n;
  const tag = ((keyTop >> 2n) << 2n) | BigInt(record.type & 3);
  const tagHex = tag.toString(16).padStart(32, '0');
  for (let at = 2; at + 96 <= hex.length; at += 96) {
    if (hex.slice(at, at + 32) === tagHex && hex.slice(at + 32, at + 96) === record.hash)
      return true;
  }
  return false;
}

/** What two nodes' answers about a write must agree on (the node itself aside). */
const writeKey = (write: RecordWrite): string =>
  write.outcome === 'written'
    ? `written ${String(write.blockNumber)} ${write.blockHash} ${String(write.blockTime)}`
    : write.outcome;

/**
 * Asks every node at once for the receipt, its block and, for a data batch, its code. The nodes
 * that answer must agree (written in the same block at the same time, or not written): a node of
 * your list that lies about when or whether a record was written is caught by any other, and then
 * nothing is believed (`unreachable`, saying they disagree).
 */
export async function findRecordWrite(
  urls: readonly string[],
  transactionHash: string,
  record: RecordToFind,
  options: JsonRpcOptions,
): Promise<RecordWrite> {
  if (!isHash32(transactionHash)) {
    return { outcome: 'notWritten', detail: 'the transaction hash is not 0x and 64 hex', node: '' };
  }
  const failures: string[] = [];
  const answers = await Promise.all(
    urls.map(async (url) => {
      try {
        return await findOnNode(url, transactionHash, record, options);
      } catch (error) {
        failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
  );
  const usable = answers.filter((answer): answer is RecordWrite => answer !== undefined);
  const [first] = usable;
  if (first === undefined) {
    return {
      outcome: 'unreachable',
      detail: `no node gave the transaction's receipt (${failures.join('; ')})`,
    };
  }
  if (new Set(usable.map(writeKey)).size > 1) {
    const told = usable.map((answer) =>
      answer.outcome === 'written'
        ? `${answer.node}: block ${String(answer.blockNumber)} at ${String(answer.blockTime)}`
        : answer.outcome === 'notWritten'
          ? `${answer.node}: ${answer.detail}`
          : answer.detail,
    );
    return {
      outcome: 'unreachable',
      detail: `the nodes disagree on the transaction ${transactionHash}, so none is believed: ${told.join('; ')}`,
    };
  }
  return first;
}

async function findOnNode(
  url: string,
  transactionHash: string,
  record: RecordToFind,
  options: JsonRpcOptions,
): Promise<RecordWrite> {
  const receipt = (await jsonRpcCall(
    url,
    'eth_getTransactionReceipt',
    [transactionHash],
    options,
  )) as {
    status?: unknown;
    blockNumber?: unknown;
    blockHash?: unknown;
    logs?: unknown;
  } | null;
  if (receipt === null) {
    return {
      outcome: 'notWritten',
      detail: `the chain has no transaction ${transactionHash}`,
      node: url,
    };
  }
  if (
    !isQuantity(receipt.blockNumber) ||
    !isHash32(receipt.blockHash) ||
    !Array.isArray(receipt.logs)
  ) {
    throw new Error('the receipt lacks its block or logs');
  }
  if (receipt.status !== '0x1') {
    return {
      outcome: 'notWritten',
      detail: `the transaction ${transactionHash} failed`,
      node: url,
    };
  }
  const written = await writesRecord(url, receipt.logs as Log[], record, options);
  if (!written) {
    return {
      outcome: 'notWritten',
      detail: `the transaction ${transactionHash} did not write this record to ${record.registry}`,
      node: url,
    };
  }
  const block = (await jsonRpcCall(
    url,
    'eth_getBlockByNumber',
    [receipt.blockNumber, false],
    options,
  )) as {
    hash?: unknown;
    timestamp?: unknown;
  } | null;
  if (block === null || !isQuantity(block.timestamp) || !isHash32(block.hash)) {
    throw new Error('the block of the receipt is unknown');
  }
  if (block.hash.toLowerCase() !== receipt.blockHash.toLowerCase()) {
    // A reorganisation between the two reads: this node's answer cannot be used.
    throw new Error('the receipt and the block disagree');
  }
  return {
    outcome: 'written',
    blockNumber: Number(BigInt(receipt.blockNumber)),
    blockHash: receipt.blockHash.toLowerCase(),
    blockTime: Number(BigInt(block.timestamp)),
    node: url,
  };
}

async function writesRecord(
  url: string,
  logs: readonly Log[],
  record: RecordToFind,
  options: JsonRpcOptions,
): Promise<boolean> {
  const topics = RECORD_EVENT_TOPICS[record.kind];
  const key = record.key.toLowerCase().slice(2);
  for (const log of logs) {
    if (
      typeof log.address !== 'string' ||
      log.address.toLowerCase() !== record.registry.toLowerCase()
    )
      continue;
    if (!Array.isArray(log.topics) || typeof log.data !== 'string') continue;
    const [topic0, ...indexed] = (log.topics as unknown[]).map((value) =>
      String(value).toLowerCase(),
    );
    const data = words(log.data);
    if (topic0 === topics.slot) {
      const type = record.kind === 'trustPoint' ? BigInt(`0x${data[2] ?? ''}`) : 0n;
      if (data[0] === key && data[1] === record.hash && type === BigInt(record.type)) return true;
    } else if (topic0 === topics.indexed) {
      const type = record.kind === 'trustPoint' ? BigInt(`0x${data[0] ?? ''}`) : 0n;
      if (
        indexed[0]?.slice(2) === key &&
        indexed[1]?.slice(2) === record.hash &&
        type === BigInt(record.type)
      ) {
        return true;
      }
    } else if (topic0 === topics.batch) {
      const address = data[0] === undefined ? undefined : `0x${data[0].slice(24)}`;
      if (address === undefined) continue;
      const code = await jsonRpcCall(url, 'eth_getCode', [address, 'latest'], options);
      if (typeof code === 'string' && dataBatchHolds(code, record)) return true;
    }
  }
  return false;
}
