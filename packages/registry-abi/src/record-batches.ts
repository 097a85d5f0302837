// Encoding of the batch registries' writes (TrustPointBatchRegistry, EvidenceBatchRepository):
// the same layout as contracts/contracts/libraries/RecordBatches.sol, which documents it; the
// contracts' tests write batches encoded here and read every record back.
import { getBytes, hexlify } from 'ethers';

/** Most records in one data contract: (EIP-170's 24,576 bytes - 1) / 48. */
export const MAX_BATCH_RECORDS = 511;
/** Bytes per record in a data contract. */
export const BATCH_RECORD_BYTES = 48;
/** Trustpoint timestamps (ms) fall in buckets of 2^10 ms. */
export const TRUSTPOINT_BUCKET_BITS = 10;
/** Evidence timestamps (s) fall in buckets of 2^4 s. */
export const EVIDENCE_BUCKET_BITS = 4;

/** One record of a batch: key and hash as 0x-prefixed 32-byte hex, the type (0 for evidences). */
export interface BatchRecord {
  key: string;
  hash: string;
  type?: number;
  timestamp: number | bigint;
}

/** Arguments of `registerTrustPointBatch` / `registerEvidenceBatch`. */
export interface EncodedBatch {
  records: string;
  buckets: bigint[];
}

/** The bucket and the offset within it of a timestamp. */
export function bucketOf(timestamp: number | bigint, bucketBits: number) {
  const t = BigInt(timestamp);
  const bits = BigInt(bucketBits);
  return { bucket: t >> bits, offset: t & ((1n << bits) - 1n) };
}

/** The 126-bit key prefix records are sorted and found by. */
export const keyPrefix = (key: string) => BigInt(key) >> 130n;

/**
 * Encodes records for a data batch: sorted by key prefix, each as its 16-byte tag (the key's top
 * 126 bits, the type in the low 2 bits) and its hash, with one word per distinct bucket
 * (`bucket << 32 | minOffset << 16 | maxOffset`). Throws on an empty or oversized batch and on two
 * records sharing a key prefix (send them in different batches).
 */
export function encodeRecordBatch(
  records: readonly BatchRecord[],
  bucketBits: number,
): EncodedBatch {
  if (records.length === 0 || records.length > MAX_BATCH_RECORDS) {
    throw new RangeError(`A data batch holds 1 to ${String(MAX_BATCH_RECORDS)} records`);
  }
  const sorted = records
    .map((record) => ({ record, prefix: keyPrefix(record.key) }))
    .sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
  // Written in place: a batch is 24 KB, and joining 1,000 parts through hex took a third of the
  // time of signing one.
  const encoded = new Uint8Array(sorted.length * BATCH_RECORD_BYTES);
  const words = new DataView(encoded.buffer);
  const ranges = new Map<bigint, { min: bigint; max: bigint }>();
  sorted.forEach(({ record, prefix }, i) => {
    if (i > 0 && sorted[i - 1]?.prefix === prefix) {
      throw new RangeError(`Two records of one batch share the key prefix of ${record.key}`);
    }
    const type = BigInt(record.type ?? 0);
    if (type < 0n || type > 3n) throw new RangeError(`Record type ${String(type)} is not 0-3`);
    const hash = getBytes(record.hash);
    if (hash.length !== 32) throw new RangeError(`Record hash ${record.hash} is not 32 bytes`);
    const at = i * BATCH_RECORD_BYTES;
    const tag = (prefix << 2n) | type;
    words.setBigUint64(at, tag >> 64n);
    words.setBigUint64(at + 8, BigInt.asUintN(64, tag));
    encoded.set(hash, at + 16);
    const { bucket, offset } = bucketOf(record.timestamp, bucketBits);
    const range = ranges.get(bucket);
    if (!range) ranges.set(bucket, { min: offset, max: offset });
    else {
      if (offset < range.min) range.min = offset;
      if (offset > range.max) range.max = offset;
    }
  });
  const buckets = [...ranges.entries()].map(
    ([bucket, { min, max }]) => (bucket << 32n) | (min << 16n) | max,
  );
  return { records: hexlify(encoded), buckets };
}
