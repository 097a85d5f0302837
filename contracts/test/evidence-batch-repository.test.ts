import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { encodeRecordBatch, EVIDENCE_BUCKET_BITS } from '@trustpoint/registry-abi';
import { deployBatchRegistries, digest, recordKey, spread } from './fixtures';

const ASSET = digest('asset').hex;
const BASE = 1_767_225_600 - (1_767_225_600 % 16); // the start of a bucket

const evidences = (label: string, n: number, timestamp: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => {
    const { word, hex } = digest(`${label} ${String(i)}`);
    return { key: recordKey(ASSET, timestamp(i)), hash: word, hex, timestamp: timestamp(i) };
  });

describe('EvidenceBatchRepository', () => {
  it('should store one evidence in a slot, emit EvidenceRecorded, skip an identical re-send and refuse another hash', async () => {
    const { repository } = await loadFixture(deployBatchRegistries);
    const key = recordKey(ASSET, BASE);
    const { word, hex } = digest('evidence');

    await expect(repository.registerEvidence(key, word, BASE))
      .to.emit(repository, 'EvidenceRecorded')
      .withArgs(key, word);
    await expect(repository.registerEvidence(key, word, BASE)).not.to.emit(
      repository,
      'EvidenceRecorded',
    );
    await expect(repository.registerEvidence(key, digest('other').word, BASE))
      .to.be.revertedWithCustomError(repository, 'EvidenceConflict')
      .withArgs(key);
    await expect(repository.registerEvidence(key, ethers.ZeroHash, BASE))
      .to.be.revertedWithCustomError(repository, 'RecordHashEmpty')
      .withArgs(0);

    expect(await repository.getEvidence(ASSET, BASE)).to.equal(hex);
    expect(await repository.findEvidence(key, BASE)).to.deep.equal([true, word]);
    expect(await repository.evidenceKey(ASSET, BASE)).to.equal(key);
  });

  it('should store small batches in slots', async () => {
    const { repository } = await loadFixture(deployBatchRegistries);
    const rs = evidences('slots', 3, (i) => BASE + i);

    await repository.registerEvidences(
      rs.map(({ key, hash, timestamp }) => ({ key, hash, timestamp })),
    );

    for (const r of rs) expect(await repository.getEvidence(ASSET, r.timestamp)).to.equal(r.hex);
  });

  it('should find the evidences of data batches across 16 s bucket edges, and revert EvidenceNotFound_7QF74 otherwise', async () => {
    const { repository } = await loadFixture(deployBatchRegistries);
    const rs = evidences('data', 40, (i) => BASE + i); // three buckets
    const { records, buckets } = encodeRecordBatch(rs, EVIDENCE_BUCKET_BITS);
    expect(buckets).to.have.length(3);
    expect(await repository.bucketOf(BASE + 17)).to.deep.equal([BigInt(BASE / 16 + 1), 1n]);

    await expect(repository.registerEvidenceBatch(records, buckets))
      .to.emit(repository, 'EvidenceBatchRecorded')
      .withArgs(0, await repository.batchAddress(0), 40);

    for (const r of spread(rs, 10))
      expect(await repository.getEvidence(ASSET, r.timestamp)).to.equal(r.hex);
    // Sent again as is: not stored twice.
    await expect(repository.registerEvidenceBatch(records, buckets)).not.to.emit(
      repository,
      'EvidenceBatchRecorded',
    );
    expect(await repository.batchCount()).to.equal(1n);
    await expect(repository.getEvidence(ASSET, BASE + 40)).to.be.revertedWithCustomError(
      repository,
      'EvidenceNotFound_7QF74',
    );
    expect((await repository.findEvidence(recordKey(ASSET, BASE + 40), BASE + 40))[0]).to.equal(
      false,
    );
  });

  it('should refuse a whole batch of slot records when one conflicts, is empty or comes too late', async () => {
    const { repository } = await loadFixture(deployBatchRegistries);
    const [held, fresh, late] = evidences('slots', 3, (i) => BASE + i);
    if (!held || !fresh || !late) throw new Error('no record');
    await repository.registerEvidence(held.key, held.hash, BASE);
    const slot = (r: typeof held, hash = r.hash) => ({ key: r.key, hash, timestamp: r.timestamp });

    await expect(repository.registerEvidences([slot(fresh), slot(held, digest('other').word)]))
      .to.be.revertedWithCustomError(repository, 'EvidenceConflict')
      .withArgs(held.key);
    await expect(repository.registerEvidences([slot(fresh), slot(late, ethers.ZeroHash)]))
      .to.be.revertedWithCustomError(repository, 'RecordHashEmpty')
      .withArgs(1);
    expect((await repository.findEvidence(fresh.key, fresh.timestamp))[0]).to.equal(false);

    // A data batch in the next bucket closes this one to slot records.
    const next = encodeRecordBatch(
      evidences('next', 1, () => BASE + 16),
      EVIDENCE_BUCKET_BITS,
    );
    await repository.registerEvidenceBatch(next.records, next.buckets);
    await expect(repository.registerEvidences([slot(fresh)]))
      .to.be.revertedWithCustomError(repository, 'SlotBucketClosed')
      .withArgs(BASE / 16);
    expect(await repository.slotBucketOpen(BASE / 16 + 2)).to.equal(true);
    expect(await repository.getEvidence(ASSET, BASE)).to.equal(held.hex);
  });

  it('should refuse malformed data batches', async () => {
    const { repository } = await loadFixture(deployBatchRegistries);
    const { records, buckets } = encodeRecordBatch(
      evidences('bad', 2, (i) => BASE + i),
      EVIDENCE_BUCKET_BITS,
    );
    const body = records.slice(2);
    const swapped = `0x${body.slice(96)}${body.slice(0, 96)}`;

    await expect(repository.registerEvidenceBatch(swapped, buckets))
      .to.be.revertedWithCustomError(repository, 'BatchNotSorted')
      .withArgs(1);
    await expect(repository.registerEvidenceBatch(`0x${body.slice(2)}`, buckets))
      .to.be.revertedWithCustomError(repository, 'BatchLengthInvalid')
      .withArgs(95);
    await expect(repository.registerEvidenceBatch(records, [])).to.be.revertedWithCustomError(
      repository,
      'BatchBucketsInvalid',
    );
    expect(await repository.batchCount()).to.equal(0n);
  });

  it('should refuse writes from anyone but a registrar', async () => {
    const { repository, stranger } = await loadFixture(deployBatchRegistries);
    const [r] = evidences('s', 1, () => BASE);
    if (!r) throw new Error('no record');
    const { records, buckets } = encodeRecordBatch([r], EVIDENCE_BUCKET_BITS);
    const asStranger = repository.connect(stranger);
    for (const send of [
      () => asStranger.registerEvidence(r.key, r.hash, BASE),
      () => asStranger.registerEvidences([]),
      () => asStranger.registerEvidenceBatch(records, buckets),
    ]) {
      await expect(send()).to.be.revertedWithCustomError(
        repository,
        'AccessControlUnauthorizedAccount',
      );
    }
  });
});
