import { EvidenceRepository__factory, TrustPointRegistry__factory } from '@trustpoint/contracts';
import { Transaction, type JsonRpcProvider, type Wallet } from 'ethers';
import type { NetworkConfig } from '../networks/network-config.js';
import type { QueuedRecord, RecordKind } from './anchor-record.js';

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

export interface SignedBatch {
  rawTransaction: string;
  transactionHash: string;
  rejected: { recordId: number; reason: string }[];
}

/**
 * Builds and signs the batch transaction at `nonce`. Gas is estimated on the node, which also
 * simulates the batch: a record the registry refuses (a conflicting hash already on chain) is
 * dropped and reported, and the rest estimated again.
 */
export async function signBatch(input: {
  provider: JsonRpcProvider;
  wallet: Wallet;
  network: NetworkConfig;
  kind: RecordKind;
  records: readonly QueuedRecord[];
  nonce: number;
}): Promise<SignedBatch | null> {
  const { provider, wallet, network, kind, nonce } = input;
  const to = contractFor(network, kind);
  let records = [...input.records];
  const rejected: { recordId: number; reason: string }[] = [];

  for (;;) {
    if (records.length === 0) return { rawTransaction: '', transactionHash: '', rejected };
    const data = encodeBatchCall(kind, records);
    let gas: bigint;
    try {
      gas = await provider.estimateGas({ from: wallet.address, to, data });
    } catch (error) {
      const refused = rejectedKey(error);
      const record = refused && records.find((r) => r.recordKey === refused.key);
      if (!refused || !record) throw error;
      rejected.push({ recordId: record.id, reason: refused.reason });
      records = records.filter((r) => r.id !== record.id);
      continue;
    }
    const fees = await provider.getFeeData();
    const transaction = Transaction.from({
      chainId: network.chainId,
      nonce,
      to,
      data,
      // Headroom: state can change between estimate and mining (other batches land first).
      gasLimit: (gas * 12n) / 10n + 10_000n,
      ...(fees.maxFeePerGas !== null && fees.maxPriorityFeePerGas !== null
        ? {
            type: 2,
            maxFeePerGas: fees.maxFeePerGas * 2n,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          }
        : { type: 0, gasPrice: fees.gasPrice }),
    });
    const rawTransaction = await wallet.signTransaction(transaction);
    const transactionHash = Transaction.from(rawTransaction).hash;
    if (!transactionHash) throw new Error('signed transaction has no hash');
    return { rawTransaction, transactionHash, rejected };
  }
}
