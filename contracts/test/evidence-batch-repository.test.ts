import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { encodeRecordBatch, EVIDENCE_BUCKET_BITS } from '../src/record-batches';
import { deployBatchRegistries, digest, recordKey } from './fixtures';

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

    for (const r of rs) expect(await repository.getEvidence(ASSET, r.timestamp)).to.equal(r.hex);
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
