import { EvidenceRepository__factory, TrustPointRegistry__factory } from '@trustpoint/contracts';
import { keccak256, Transaction, type JsonRpcProvider, type Wallet } from 'ethers';
import type { NetworkConfig } from '../networks/network-config.js';
import type { QueuedRecord, RecordKind } from './anchor-record.js';
import { maxCostPerGas, type TransactionFees } from './fees.js';

const registryInterface = TrustPointRegistry__factory.createInterface();
const repositoryInterface = EvidenceRepository__factory.createInterface();

/** Errors that name one record of a batch that can never be written: drop it, keep the rest. */
const RECORD_ERRORS = new Set([
  'TrustPointConflict',
  'TrustPointHashEmpty',
  'EvidenceConflict',
  'EvidenceHashEmpty',
]);

export function contractFor(network: NetworkConfig, kind: RecordKind): string {
  return kind === 'trustpoint' ? network.trustPointRegistry : network.evidenceRepository;
}

export function encodeBatchCall(kind: RecordKind, records: readonly QueuedRecord[]): string {
  if (kind === 'trustpoint') {
    return registryInterface.encodeFunctionData('registerTrustPoints', [
      records.map((record) => ({
        key: record.recordKey,
        hash: `0x${record.hash}`,
        trustPointType: record.trustPointType ?? 0,
      })),
    ]);
  }
  return repositoryInterface.encodeFunctionData('registerEvidences', [
    records.map((record) => ({ key: record.recordKey, hash: `0x${record.hash}` })),
  ]);
}

/** The record a revert names, when the revert is one of the per-record errors. */
function rejectedKey(error: unknown): { key: string; reason: string } | undefined {
  const data = (error as { data?: unknown }).data;
  if (typeof data !== 'string') return undefined;
  for (const contract of [registryInterface, repositoryInterface]) {
    const parsed = contract.parseError(data);
    if (parsed && RECORD_ERRORS.has(parsed.name)) {
      return { key: String(parsed.args[0]).toLowerCase(), reason: parsed.name };
    }
  }
  return undefined;
}

/**
 * Gas limit without simulation: above what a record can cost (a new slot, a second slot for a
 * non-Evidence type, calldata and the event), so a batch never runs out of gas; only gas used is paid.
 */
export function gasLimitFor(kind: RecordKind, records: readonly QueuedRecord[]): bigint {
  const perRecord = (record: QueuedRecord) =>
    kind === 'trustpoint' && (record.trustPointType ?? 0) !== 0 ? 52_000n : 30_000n;
  return records.reduce((total, record) => total + perRecord(record), 60_000n);
}

/**
 * The gas limit of a batch of `count` records of the common shape (one slot each, as every
 * evidence and Evidence-type trustpoint): what the registrar's balance must cover for it.
 */
export function gasLimitForCount(count: number): bigint {
  return 60_000n + 30_000n * BigInt(count);
}

/**
 * The most a batch of `count` records can cost at these fees: its gas limit times the max fee per
 * gas. What the registrar must hold before the batch is sent (0 on a free-gas network).
 */
export function batchCost(count: number, fees: TransactionFees): bigint {
  return gasLimitForCount(count) * maxCostPerGas(fees);
}

/** A record the registry refuses, with the contract error that names it. */
export interface RefusedRecord {
  recordId: number;
  reason: string;
}

/** The signed transaction of a batch (none when every record was refused), and the refused ones. */
export interface SignedBatch {
  transaction: { raw: string; hash: string } | null;
  rejected: RefusedRecord[];
}

/**
 * Builds and signs the batch transaction at `nonce`. With `simulate`, the node first runs the batch
 * (gas estimation): a record the registry refuses (another hash already under its key) is dropped
 * and reported, and the rest simulated again. Without it, the gas limit comes from `gasLimitFor`,
 * which saves a round trip on the common path; the anchorer simulates after a batch reverted.
 */
export async function signBatch(input: {
  provider: JsonRpcProvider;
  wallet: Wallet;
  network: NetworkConfig;
  kind: RecordKind;
  records: readonly QueuedRecord[];
  nonce: number;
  simulate: boolean;
  /** The fees to sign with, asked for once the records are known (cap and floor applied). */
  fees: () => Promise<TransactionFees>;
}): Promise<SignedBatch> {
  const { provider, wallet, network, kind, nonce } = input;
  const to = contractFor(network, kind);
  let records = [...input.records];
  const rejected: RefusedRecord[] = [];

  for (;;) {
    if (records.length === 0) return { transaction: null, rejected };
    const data = encodeBatchCall(kind, records);
    let gasLimit = gasLimitFor(kind, records);
    if (input.simulate) {
      try {
        // Headroom: state can change between estimate and mining (other batches land first).
        gasLimit =
          ((await provider.estimateGas({ from: wallet.address, to, data })) * 12n) / 10n + 10_000n;
      } catch (error) {
        const refused = rejectedKey(error);
        const record = refused && records.find((r) => r.recordKey === refused.key);
        if (!refused || !record) throw error;
        rejected.push({ recordId: record.id, reason: refused.reason });
        records = records.filter((r) => r.id !== record.id);
        continue;
      }
    }
    const fees = await input.fees();
    const transaction = Transaction.from({
      chainId: network.chainId,
      nonce,
      to,
      data,
      gasLimit,
      ...fees,
    });
    const raw = await wallet.signTransaction(transaction);
    // The hash of a signed transaction is the keccak of its bytes: no need to parse it back.
    return { transaction: { raw, hash: keccak256(raw) }, rejected };
  }
}

/**
 * Signs a replacement of a stored batch transaction: the same nonce, call and gas limit, so the
 * same records, with other fees. Only one of the two can ever be mined.
 */
export async function signReplacement(
  wallet: Wallet,
  raw: string,
  fees: TransactionFees,
): Promise<{ raw: string; hash: string }> {
  const original = Transaction.from(raw);
  const transaction = Transaction.from({
    chainId: original.chainId,
    nonce: original.nonce,
    to: original.to,
    data: original.data,
    value: original.value,
    gasLimit: original.gasLimit,
    ...fees,
  });
  const signed = await wallet.signTransaction(transaction);
  return { raw: signed, hash: keccak256(signed) };
}
