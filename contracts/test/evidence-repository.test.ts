import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { deployRegistries, digest, recordKey } from './fixtures';

const ASSET_HASH = digest('asset').hex;
const AT = 1_767_225_600;

describe('EvidenceRepository', () => {
  describe('registering one evidence', () => {
    it('should return the hash as 64 lowercase hex characters', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const { word, hex } = digest('evidence');

      await repository.connect(registrar).registerEvidence(recordKey(ASSET_HASH, AT), word);

      const hash = await repository.getEvidence(ASSET_HASH, AT);
      expect(hash).to.equal(hex);
      expect(hash).to.match(/^[0-9a-f]{64}$/);
    });

    it('should emit EvidenceRegistered with key and hash', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(ASSET_HASH, AT);
      const { word } = digest('evidence');

      await expect(repository.connect(registrar).registerEvidence(key, word))
        .to.emit(repository, 'EvidenceRegistered')
        .withArgs(key, word);
    });

    it('should be a no-op without event when an identical record is re-sent', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(ASSET_HASH, AT);
      await repository.connect(registrar).registerEvidence(key, digest('e').word);

      await expect(
        repository.connect(registrar).registerEvidence(key, digest('e').word),
      ).not.to.emit(repository, 'EvidenceRegistered');
    });

    it('should revert with EvidenceConflict when the key holds another hash', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(ASSET_HASH, AT);
      await repository.connect(registrar).registerEvidence(key, digest('a').word);

      await expect(repository.connect(registrar).registerEvidence(key, digest('b').word))
        .to.be.revertedWithCustomError(repository, 'EvidenceConflict')
        .withArgs(key);
      expect(await repository.getEvidence(ASSET_HASH, AT)).to.equal(digest('a').hex);
    });

    it('should revert with EvidenceHashEmpty for a zero hash', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(ASSET_HASH, AT);

      await expect(repository.connect(registrar).registerEvidence(key, ethers.ZeroHash))
        .to.be.revertedWithCustomError(repository, 'EvidenceHashEmpty')
        .withArgs(key);
    });
  });

  describe('registering a batch', () => {
    const batchOf = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        timestamp: AT + i,
        hash: digest(`evidence ${String(i)}`),
      }));
    const asInput = (list: ReturnType<typeof batchOf>) =>
      list.map((r) => ({ key: recordKey(ASSET_HASH, r.timestamp), hash: r.hash.word }));

    it('should record every evidence and emit one event per record', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const batch = batchOf(5);

      const receipt = await (
        await repository.connect(registrar).registerEvidences(asInput(batch))
      ).wait();

      expect(receipt?.logs.length).to.equal(5);
      for (const r of batch)
        expect(await repository.getEvidence(ASSET_HASH, r.timestamp)).to.equal(r.hash.hex);
    });

    it('should skip records already present identically, so a whole batch can be re-sent', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const batch = batchOf(4);
      await repository.connect(registrar).registerEvidences(asInput(batch.slice(1, 3)));

      const receipt = await (
        await repository.connect(registrar).registerEvidences(asInput(batch))
      ).wait();

      expect(receipt?.logs.length).to.equal(2);
      for (const r of batch)
        expect(await repository.getEvidence(ASSET_HASH, r.timestamp)).to.equal(r.hash.hex);
    });

    it('should revert the whole batch when one record conflicts', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const batch = batchOf(3);
      const conflictKey = recordKey(ASSET_HASH, AT + 1);
      await repository.connect(registrar).registerEvidence(conflictKey, digest('other').word);

      await expect(repository.connect(registrar).registerEvidences(asInput(batch)))
        .to.be.revertedWithCustomError(repository, 'EvidenceConflict')
        .withArgs(conflictKey);
      await expect(repository.getEvidence(ASSET_HASH, AT)).to.be.revertedWithCustomError(
        repository,
        'EvidenceNotFound_7QF74',
      );
    });
  });

  describe('access control', () => {
    it('should revert when an account without the registrar role registers', async () => {
      const { repository, stranger } = await loadFixture(deployRegistries);
      const role = await repository.REGISTRAR_ROLE();
      const record = { key: recordKey(ASSET_HASH, AT), hash: digest('a').word };

      await expect(repository.connect(stranger).registerEvidence(record.key, record.hash))
        .to.be.revertedWithCustomError(repository, 'AccessControlUnauthorizedAccount')
        .withArgs(stranger.address, role);
      await expect(repository.connect(stranger).registerEvidences([record]))
        .to.be.revertedWithCustomError(repository, 'AccessControlUnauthorizedAccount')
        .withArgs(stranger.address, role);
    });

    it('should let the admin revoke the registrar role', async () => {
      const { repository, admin, registrar } = await loadFixture(deployRegistries);
      await repository
        .connect(admin)
        .revokeRole(await repository.REGISTRAR_ROLE(), registrar.address);

      await expect(
        repository.connect(registrar).registerEvidence(recordKey(ASSET_HASH, AT), digest('a').word),
      ).to.be.revertedWithCustomError(repository, 'AccessControlUnauthorizedAccount');
    });
  });

  describe('reading', () => {
    it('should revert with EvidenceNotFound_7QF74 (0x09cea733) for an unknown key', async () => {
      const { repository } = await loadFixture(deployRegistries);

      expect(repository.interface.getError('EvidenceNotFound_7QF74')?.selector).to.equal(
        '0x09cea733',
      );
      await expect(repository.getEvidence(ASSET_HASH, AT)).to.be.revertedWithCustomError(
        repository,
        'EvidenceNotFound_7QF74',
      );
    });

    it('should treat the asset hash as the exact lowercase string', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      await repository
        .connect(registrar)
        .registerEvidence(recordKey(ASSET_HASH, AT), digest('a').word);

      await expect(
        repository.getEvidence(ASSET_HASH.toUpperCase(), AT),
      ).to.be.revertedWithCustomError(repository, 'EvidenceNotFound_7QF74');
    });

    it('should compute keys as keccak256(abi.encodePacked(assetHash, timestamp))', async () => {
      const { repository } = await loadFixture(deployRegistries);

      expect(await repository.evidenceKey(ASSET_HASH, AT)).to.equal(recordKey(ASSET_HASH, AT));
    });

    it('should read raw records by key, zero when absent', async () => {
      const { repository, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(ASSET_HASH, AT);
      expect(await repository.evidenceOf(key)).to.equal(ethers.ZeroHash);

      await repository.connect(registrar).registerEvidence(key, digest('a').word);

      expect(await repository.evidenceOf(key)).to.equal(digest('a').word);
    });
  });
});
