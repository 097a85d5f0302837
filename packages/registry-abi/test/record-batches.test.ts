import { getBytes, hexlify, keccak256, toUtf8Bytes, zeroPadValue } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  BATCH_RECORD_BYTES,
  bucketOf,
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  keyPrefix,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
  TrustPointType,
  type BatchRecord,
} from '../src/index.js';

const key = (id: string) => keccak256(toUtf8Bytes(id));
const hash = (n: number) => zeroPadValue(`0x${n.toString(16).padStart(2, '0')}`, 32);

/** The records of an encoded batch, read back as the contract's binary search reads them. */
function decode(records: string) {
  const bytes = getBytes(records);
  const out: { tag: bigint; hash: string }[] = [];
  for (let at = 0; at < bytes.length; at += BATCH_RECORD_BYTES) {
    out.push({
      tag: BigInt(hexlify(bytes.slice(at, at + 16))),
      hash: hexlify(bytes.slice(at + 16, at + BATCH_RECORD_BYTES)),
    });
  }
  return out;
}

describe('bucketOf', () => {
  it('when given a timestamp, then splits it into its bucket and the offset within it', () => {
    expect(bucketOf(1_700_000_000_123, TRUSTPOINT_BUCKET_BITS)).toEqual({
      bucket: 1_700_000_000_123n >> 10n,
      offset: 1_700_000_000_123n & 1023n,
    });
    expect(bucketOf(1_700_000_017n, EVIDENCE_BUCKET_BITS)).toEqual({
      bucket: 1_700_000_017n >> 4n,
      offset: 1n,
    });
  });
});

describe('encodeRecordBatch', () => {
  it('when given records in any order, then writes them ascending by tag, each tag then hash', () => {
    const records: BatchRecord[] = ['c', 'a', 'b', 'd'].map((id, i) => ({
      key: key(id),
      hash: hash(i + 1),
      type: i % 3,
      timestamp: 1_024 * 5 + i,
    }));
    const { records: encoded } = encodeRecordBatch(records, TRUSTPOINT_BUCKET_BITS);

    expect(getBytes(encoded)).toHaveLength(records.length * BATCH_RECORD_BYTES);
    const decoded = decode(encoded);
    const expected = records
      .map((record) => ({
        tag: (keyPrefix(record.key) << 2n) | BigInt(record.type ?? 0),
        hash: record.hash,
      }))
      .sort((a, b) => (a.tag < b.tag ? -1 : 1));
    expect(decoded).toEqual(expected);
  });

  it('when records fall in several buckets, then writes one word per bucket with its offset range', () => {
    const at = (timestamp: number, id: string): BatchRecord => ({
      key: key(id),
      hash: hash(1),
      type: TrustPointType.Evidence,
      timestamp,
    });
    const { buckets } = encodeRecordBatch(
      [
        at(2 * 1_024 + 7, 'a'),
        at(2 * 1_024 + 900, 'b'),
        at(2 * 1_024 + 3, 'c'),
        at(9 * 1_024, 'd'),
      ],
      TRUSTPOINT_BUCKET_BITS,
    );

    expect(buckets).toEqual([(2n << 32n) | (3n << 16n) | 900n, (9n << 32n) | (0n << 16n) | 0n]);
  });

  it('when a batch is empty or larger than a data contract holds, then refuses it', () => {
    expect(() => encodeRecordBatch([], EVIDENCE_BUCKET_BITS)).toThrow(RangeError);
    const tooMany = Array.from({ length: MAX_BATCH_RECORDS + 1 }, (_, i) => ({
      key: key(String(i)),
      hash: hash(1),
      timestamp: i,
    }));
    expect(() => encodeRecordBatch(tooMany, EVIDENCE_BUCKET_BITS)).toThrow(/1 to 511 records/);
    expect(() => encodeRecordBatch(tooMany.slice(1), EVIDENCE_BUCKET_BITS)).not.toThrow();
  });

  it('when two records share a key prefix, a type is out of range or a hash is not 32 bytes, then refuses the batch', () => {
    const record = { key: key('a'), hash: hash(1), timestamp: 1 };
    expect(() => encodeRecordBatch([record, { ...record, hash: hash(2) }], 4)).toThrow(
      /share the key prefix/,
    );
    expect(() => encodeRecordBatch([{ ...record, type: 4 }], 4)).toThrow(/not 0-3/);
    expect(() => encodeRecordBatch([{ ...record, hash: hash(1).slice(0, 64) }], 4)).toThrow(
      /not 32 bytes/,
    );
  });
});
