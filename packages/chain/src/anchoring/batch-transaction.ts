import {
  bucketOf,
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  EvidenceBatchRepository__factory,
  EvidenceRepository__factory,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
  TrustPointBatchRegistry__factory,
  TrustPointRegistry__factory,
  TrustPointStatusRegistry__factory,
  type RegistryGeneration,
} from '@trustpoint/registry-abi';
import { RLP } from '@ethereumjs/rlp';
import type { RefusedRecord, SignedBatch } from '@trustpoint/db';
import {
  AbiCoder,
  getAddress,
  keccak256,
  Transaction,
  type JsonRpcProvider,
  type Wallet,
} from 'ethers';
import type { NetworkConfig } from '../networks/network-config.js';
import type { QueuedRecord, RecordKind } from './anchor-record.js';
import { maxCostPerGas, type TransactionFees } from './fees.js';

const registryInterface = TrustPointRegistry__factory.createInterface();
const repositoryInterface = EvidenceRepository__factory.createInterface();
const batchRegistryInterface = TrustPointBatchRegistry__factory.createInterface();
const batchRepositoryInterface = EvidenceBatchRepository__factory.createInterface();
const statusInterface = TrustPointStatusRegistry__factory.createInterface();
const REGISTER_TRUSTPOINT_BATCH = batchRegistryInterface.getFunction('registerTrustPointBatch');
const REGISTER_EVIDENCE_BATCH = batchRepositoryInterface.getFunction('registerEvidenceBatch');

/** How a batch is written: one call of the registry and the records it carries. */
export type BatchMedium = 'slots' | 'data';

/** Records a batch holds on slot registries when the networks file names no `batch.maxSize`. */
export const DEFAULT_SLOT_BATCH_SIZE = 250;

/**
 * Most records one batch carries: the configured size, by default what suits the registries. On a
 * batch registry at most what one data contract holds (511), and that by default, so a long queue
 * fills whole data contracts.
 */
export function batchCapacity(generation: RegistryGeneration, configured?: number): number {
  if (generation === 'batches') return Math.min(configured ?? MAX_BATCH_RECORDS, MAX_BATCH_RECORDS);
  return configured ?? DEFAULT_SLOT_BATCH_SIZE;
}

/**
 * The call a batch registry answers and a slot registry does not (`bucketOf(0)`): how the engine
 * tells the generations apart without configuration, so a networks file only names addresses.
 */
export const GENERATION_PROBE = batchRegistryInterface.encodeFunctionData('bucketOf', [0]);

/** Errors that name one record of a batch that can never be written: drop it, keep the rest. */
const RECORD_ERRORS = new Set([
  'TrustPointConflict',
  'TrustPointHashEmpty',
  'EvidenceConflict',
  'EvidenceHashEmpty',
  'RevocationConflict',
  'RevocationTimestampEmpty',
]);

/** The contract records of `kind` go to on this network: a status needs its status registry. */
export function contractFor(network: NetworkConfig, kind: RecordKind): string {
  switch (kind) {
    case 'trustpoint':
      return network.trustPointRegistry;
    case 'evidence':
      return network.evidenceRepository;
    case 'status':
      if (network.statusRegistry === undefined) {
        throw new Error(`network ${network.networkId} names no status registry`);
      }
      return network.statusRegistry;
  }
}

/** The contract a signed batch transaction calls: where its records are, whatever the config says now. */
export function contractOfRaw(raw: string): string {
  // Read from the RLP fields: ethers' `Transaction.from` turns its 24 KB of data into hex and back
  // several times (6 ms a batch of 500).
  const bytes = bytesOfHex(raw);
  const typed = bytes[0] !== undefined && bytes[0] <= 0x7f;
  const fields = RLP.decode(typed ? bytes.subarray(1) : bytes);
  const to = Array.isArray(fields) ? fields[typed ? 5 : 3] : undefined;
  if (!(to instanceof Uint8Array) || to.length !== 20) {
    throw new Error('a batch transaction has no recipient');
  }
  return getAddress(hexOfBytes(to));
}

const bytesOfHex = (hex: string): Uint8Array => Buffer.from(hex.slice(2), 'hex');
const hexOfBytes = (bytes: Uint8Array): string =>
  `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;

/** A batch's transaction before it is signed. */
export interface UnsignedBatchTransaction {
  chainId: number;
  nonce: number;
  to: string;
  /** The call data, 0x-prefixed hex. */
  data: string;
  gasLimit: bigint;
  fees: TransactionFees;
}

/**
 * Signs a batch's transaction: the same bytes as ethers' `Wallet.signTransaction` (a type 2
 * transaction, or a legacy one with EIP-155's chain id where the network has no 1559 fees; a test
 * holds them equal), serialized with its call data as bytes. ethers keeps call data as hex and
 * converts it back and forth at each step: 23 ms of the 33 it took to sign a batch of 500 records
 * on the service's thread, here about 4 (two hashes of its 24 KB and the signature).
 */
export function signBatchTransaction(
  wallet: Wallet,
  transaction: UnsignedBatchTransaction,
): { raw: string; hash: string } {
  const { chainId, nonce, gasLimit, fees } = transaction;
  const to = bytesOfHex(getAddress(transaction.to));
  const data = bytesOfHex(transaction.data);
  const typed = (fields: Uint8Array) => {
    const bytes = new Uint8Array(fields.length + 1);
    bytes[0] = 2;
    bytes.set(fields, 1);
    return bytes;
  };
  let signed: Uint8Array;
  if (fees.type === 2) {
    const { maxFeePerGas, maxPriorityFeePerGas } = fees;
    const fields = [chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to, 0, data, []];
    const signature = wallet.signingKey.sign(keccak256(typed(RLP.encode(fields))));
    signed = typed(
      RLP.encode([...fields, signature.yParity, BigInt(signature.r), BigInt(signature.s)]),
    );
  } else {
    const fields = [nonce, fees.gasPrice, gasLimit, to, 0, data];
    const signature = wallet.signingKey.sign(keccak256(RLP.encode([...fields, chainId, 0, 0])));
    const v = BigInt(chainId) * 2n + 35n + BigInt(signature.yParity);
    signed = RLP.encode([...fields, v, BigInt(signature.r), BigInt(signature.s)]);
  }
  // The hash of a signed transaction is the keccak of its bytes.
  return { raw: hexOfBytes(signed), hash: keccak256(signed) };
}

const bucketBits = (kind: RecordKind) =>
  kind === 'trustpoint' ? TRUSTPOINT_BUCKET_BITS : EVIDENCE_BUCKET_BITS;

function timestampOf(record: QueuedRecord): number {
  if (record.timestamp === null) {
    throw new Error(`anchor record ${String(record.id)} has no timestamp for a batch registry`);
  }
  return record.timestamp;
}

/** The lowest time bucket among the records: the one a slot batch needs open. */
export function lowestBucket(kind: RecordKind, records: readonly QueuedRecord[]): bigint {
  return (
    records.reduce<bigint | undefined>((lowest, record) => {
      const { bucket } = bucketOf(timestampOf(record), bucketBits(kind));
      return lowest === undefined || bucket < lowest ? bucket : lowest;
    }, undefined) ?? 0n
  );
}

const isRevocationOrSignature = (kind: RecordKind, record: QueuedRecord) =>
  kind === 'trustpoint' && (record.trustPointType ?? 0) !== 0;

const distinctBuckets = (kind: RecordKind, records: readonly QueuedRecord[]) =>
  new Set(records.map((record) => bucketOf(timestampOf(record), bucketBits(kind)).bucket)).size;

/**
 * Gas of a batch on a batch registry, fitted to the committed gas snapshot
 * (`contracts/gas-snapshot.json`): slots 23,200 + 25,935 a record (+22,202 for a second slot
 * holding a Revocation or Signature type); a data contract 85,300 + 10,580 a record, and a new
 * bucket word (a fresh slot) for each bucket beyond the first.
 */
export function estimatedGas(
  medium: BatchMedium,
  kind: RecordKind,
  records: readonly QueuedRecord[],
): number {
  if (medium === 'slots') {
    const typed = records.filter((record) => isRevocationOrSignature(kind, record)).length;
    return 23_200 + 25_935 * records.length + 22_202 * typed;
  }
  return 85_300 + 10_580 * records.length + 22_100 * (distinctBuckets(kind, records) - 1);
}

/** The cheaper way to write a batch on a batch registry, by the measured figures above. */
export function cheaperMedium(kind: RecordKind, records: readonly QueuedRecord[]): BatchMedium {
  return estimatedGas('slots', kind, records) <= estimatedGas('data', kind, records)
    ? 'slots'
    : 'data';
}

export function encodeBatchCall(
  kind: RecordKind,
  records: readonly QueuedRecord[],
  generation: RegistryGeneration = 'slots',
  medium: BatchMedium = 'slots',
): string {
  if (kind === 'status') {
    // One write-once word per certificate: the status registry has no generations or buckets.
    return statusInterface.encodeFunctionData('registerRevocations', [
      records.map((record) => ({ key: record.recordKey, timestamp: timestampOf(record) })),
    ]);
  }
  if (generation === 'batches') {
    if (medium === 'data') {
      const batch = encodeRecordBatch(
        records.map((record) => ({
          key: record.recordKey,
          hash: `0x${record.hash}`,
          type: record.trustPointType ?? 0,
          timestamp: timestampOf(record),
        })),
        bucketBits(kind),
      );
      const call = kind === 'trustpoint' ? REGISTER_TRUSTPOINT_BATCH : REGISTER_EVIDENCE_BATCH;
      // The records read from hex by Node.js, and the selector and the arguments joined as text:
      // ethers parses hex a byte at a time, and `encodeFunctionData` joins them as bytes, parsing
      // the batch's 24 KB back from hex (about 3 ms a batch of 500 each).
      return (
        call.selector +
        AbiCoder.defaultAbiCoder()
          .encode(call.inputs, [bytesOfHex(batch.records), batch.buckets])
          .slice(2)
      );
    }
    return kind === 'trustpoint'
      ? batchRegistryInterface.encodeFunctionData('registerTrustPoints', [
          records.map((record) => ({
            key: record.recordKey,
            hash: `0x${record.hash}`,
            trustPointType: record.trustPointType ?? 0,
            timestamp: timestampOf(record),
          })),
        ])
      : batchRepositoryInterface.encodeFunctionData('registerEvidences', [
          records.map((record) => ({
            key: record.recordKey,
            hash: `0x${record.hash}`,
            timestamp: timestampOf(record),
          })),
        ]);
  }
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
  for (const contract of [registryInterface, repositoryInterface, statusInterface]) {
    const parsed = contract.parseError(data);
    if (parsed && RECORD_ERRORS.has(parsed.name)) {
      return { key: String(parsed.args[0]).toLowerCase(), reason: parsed.name };
    }
  }
  return undefined;
}

/** A batch registry refusing slot records of a bucket a data batch already touched. */
function isSlotBucketClosed(error: unknown): boolean {
  const data = (error as { data?: unknown }).data;
  if (typeof data !== 'string') return false;
  return batchRegistryInterface.parseError(data)?.name === 'SlotBucketClosed';
}

/**
 * Gas limit without simulation: above what a record can cost (a new slot, a second slot for a
 * non-Evidence type, calldata and the event), so a batch never runs out of gas; only gas used is paid.
 * A data batch: the code deposit (200 gas a byte, 48 bytes a record), calldata, a bucket word for
 * each bucket, and room for the look-up of an identical earlier batch among its bucket's entries.
 */
export function gasLimitFor(
  kind: RecordKind,
  records: readonly QueuedRecord[],
  medium: BatchMedium = 'slots',
): bigint {
  if (medium === 'data') {
    return (
      450_000n + 12_000n * BigInt(records.length) + 50_000n * BigInt(distinctBuckets(kind, records))
    );
  }
  const perRecord = (record: QueuedRecord) =>
    isRevocationOrSignature(kind, record) ? 52_000n : 30_000n;
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

/**
 * Builds and signs the batch transaction at `nonce`. With `simulate`, the node first runs the batch
 * (gas estimation): a record the registry refuses (another hash already under its key) is dropped
 * and reported, and the rest simulated again. Without it, the gas limit comes from `gasLimitFor`,
 * which saves a round trip on the common path; the anchorer simulates after a batch reverted.
 *
 * On a batch registry the batch goes the cheaper way by measured gas: a few records in slots while
 * their time buckets still take slot records (one `slotBucketOpen` call, made only for such small
 * batches), otherwise as one data contract. A data batch is never refused record by record: the
 * database already keeps one hash per key, and the registry keeps the first record of a key forever.
 */
export async function signBatch(input: {
  provider: JsonRpcProvider;
  wallet: Wallet;
  network: NetworkConfig;
  kind: RecordKind;
  records: readonly QueuedRecord[];
  nonce: number;
  simulate: boolean;
  /** The generation of the registry `contractFor(network, kind)` names. */
  generation?: RegistryGeneration;
  /** The fees to sign with, asked for once the records are known (cap and floor applied). */
  fees: () => Promise<TransactionFees>;
}): Promise<SignedBatch> {
  const { provider, wallet, network, kind, nonce } = input;
  const generation = input.generation ?? 'slots';
  const to = contractFor(network, kind);
  let records = [...input.records];
  const rejected: RefusedRecord[] = [];
  let slotsRefused = false;
  if (generation === 'batches') {
    // A batch registry files a record by its timestamp; a record queued before timestamps were
    // kept and linked to no trustpoint or evidence has none, and can never be found by a verifier.
    for (const record of records) {
      if (record.timestamp === null) {
        rejected.push({ recordId: record.id, reason: 'RecordTimestampUnknown' });
      }
    }
    records = records.filter((record) => record.timestamp !== null);
  }

  for (;;) {
    if (records.length === 0) return { transaction: null, rejected };
    let medium: BatchMedium = 'slots';
    if (generation === 'batches') {
      medium = !slotsRefused && cheaperMedium(kind, records) === 'slots' ? 'slots' : 'data';
      if (medium === 'slots' && !(await slotBucketOpen(provider, to, kind, records))) {
        medium = 'data';
      }
    }
    if (input.simulate && medium === 'data') {
      // A data contract takes any record, and a lookup answers the first one of a key: a record
      // someone else wrote under one of these keys would shadow ours. Looked for only when
      // simulating (at start and after a revert); on the common path the database is the truth.
      const refused = await recordedOtherwise(provider, to, kind, records);
      if (refused.length > 0) {
        const ids = new Set(refused.map((record) => record.id));
        rejected.push(
          ...refused.map((record) => ({
            recordId: record.id,
            reason: kind === 'trustpoint' ? 'TrustPointConflict' : 'EvidenceConflict',
          })),
        );
        records = records.filter((record) => !ids.has(record.id));
        continue;
      }
    }
    const data = encodeBatchCall(kind, records, generation, medium);
    let gasLimit = gasLimitFor(kind, records, medium);
    if (input.simulate) {
      try {
        // Headroom: state can change between estimate and mining (other batches land first).
        gasLimit =
          ((await provider.estimateGas({ from: wallet.address, to, data })) * 12n) / 10n + 10_000n;
      } catch (error) {
        if (medium === 'slots' && isSlotBucketClosed(error)) {
          slotsRefused = true;
          continue;
        }
        const refused = rejectedKey(error);
        const record = refused && records.find((r) => r.recordKey === refused.key);
        if (!refused || !record) throw error;
        rejected.push({ recordId: record.id, reason: refused.reason });
        records = records.filter((r) => r.id !== record.id);
        continue;
      }
    }
    const fees = await input.fees();
    const transaction = signBatchTransaction(wallet, {
      chainId: network.chainId,
      nonce,
      to,
      data,
      gasLimit,
      fees,
    });
    return { transaction, rejected };
  }
}

/** The records a batch registry already holds under their key with another hash or type. */
async function recordedOtherwise(
  provider: JsonRpcProvider,
  to: string,
  kind: RecordKind,
  records: readonly QueuedRecord[],
): Promise<QueuedRecord[]> {
  // Concurrent calls: the provider sends them as JSON-RPC batches.
  const found = await Promise.all(
    records.map(async (record) => {
      if (kind === 'trustpoint') {
        const answer = await provider.call({
          to,
          data: batchRegistryInterface.encodeFunctionData('findTrustPoint', [
            record.recordKey,
            timestampOf(record),
          ]),
        });
        const [exists, hash, type] = batchRegistryInterface.decodeFunctionResult(
          'findTrustPoint',
          answer,
        );
        return (
          Boolean(exists) &&
          (String(hash) !== `0x${record.hash}` || Number(type) !== (record.trustPointType ?? 0))
        );
      }
      const answer = await provider.call({
        to,
        data: batchRepositoryInterface.encodeFunctionData('findEvidence', [
          record.recordKey,
          timestampOf(record),
        ]),
      });
      const [exists, hash] = batchRepositoryInterface.decodeFunctionResult('findEvidence', answer);
      return Boolean(exists) && String(hash) !== `0x${record.hash}`;
    }),
  );
  return records.filter((_, index) => found[index]);
}

/** Whether a batch registry still takes slot records in the lowest bucket of these records. */
async function slotBucketOpen(
  provider: JsonRpcProvider,
  to: string,
  kind: RecordKind,
  records: readonly QueuedRecord[],
): Promise<boolean> {
  const answer = await provider.call({
    to,
    data: batchRegistryInterface.encodeFunctionData('slotBucketOpen', [
      lowestBucket(kind, records),
    ]),
  });
  return Boolean(batchRegistryInterface.decodeFunctionResult('slotBucketOpen', answer)[0]);
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
