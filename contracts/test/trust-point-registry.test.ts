import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { deployRegistries, digest, Evidence, recordKey, Revocation, Signature } from './fixtures';

const CERT_ID = 'did:trustpoint:certid:019b7a2c-8e00-7000-8000-000000000001';
const ISSUED_ON = 1_767_225_600_123;

describe('TrustPointRegistry', () => {
  describe('registering one trustpoint', () => {
    it('should return the hash as 64 lowercase hex characters and the type', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const { word, hex } = digest('content');

      await registry
        .connect(registrar)
        .registerTrustPoint(recordKey(CERT_ID, ISSUED_ON), word, Evidence);

      const [hash, type] = await registry.getTrustPoint(CERT_ID, ISSUED_ON);
      expect(hash).to.equal(hex);
      expect(hash).to.match(/^[0-9a-f]{64}$/);
      expect(type).to.equal(BigInt(Evidence));
    });

    it('should keep Revocation and Signature types apart from Evidence', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const revocation = digest(`Certificate ${CERT_ID} has been revoked`);
      const signature = digest('signature bytes');

      await registry
        .connect(registrar)
        .registerTrustPoint(recordKey(CERT_ID, ISSUED_ON + 1), revocation.word, Revocation);
      await registry
        .connect(registrar)
        .registerTrustPoint(recordKey(CERT_ID, ISSUED_ON + 2), signature.word, Signature);

      expect(await registry.getTrustPoint(CERT_ID, ISSUED_ON + 1)).to.deep.equal([
        revocation.hex,
        BigInt(Revocation),
      ]);
      expect(await registry.getTrustPoint(CERT_ID, ISSUED_ON + 2)).to.deep.equal([
        signature.hex,
        BigInt(Signature),
      ]);
    });

    it('should emit TrustPointRegistered with key, hash and type', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);
      const { word } = digest('content');

      await expect(registry.connect(registrar).registerTrustPoint(key, word, Revocation))
        .to.emit(registry, 'TrustPointRegistered')
        .withArgs(key, word, Revocation);
    });

    it('should be a no-op without event when an identical record is re-sent', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);
      const { word, hex } = digest('content');
      await registry.connect(registrar).registerTrustPoint(key, word, Evidence);

      await expect(registry.connect(registrar).registerTrustPoint(key, word, Evidence)).not.to.emit(
        registry,
        'TrustPointRegistered',
      );
      expect((await registry.getTrustPoint(CERT_ID, ISSUED_ON))[0]).to.equal(hex);
    });

    it('should revert with TrustPointConflict when the key holds another hash', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);
      await registry.connect(registrar).registerTrustPoint(key, digest('a').word, Evidence);

      await expect(registry.connect(registrar).registerTrustPoint(key, digest('b').word, Evidence))
        .to.be.revertedWithCustomError(registry, 'TrustPointConflict')
        .withArgs(key);
      expect((await registry.getTrustPoint(CERT_ID, ISSUED_ON))[0]).to.equal(digest('a').hex);
    });

    it('should revert with TrustPointConflict when the key holds the same hash with another type', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);
      await registry.connect(registrar).registerTrustPoint(key, digest('a').word, Evidence);

      await expect(registry.connect(registrar).registerTrustPoint(key, digest('a').word, Signature))
        .to.be.revertedWithCustomError(registry, 'TrustPointConflict')
        .withArgs(key);
    });

    it('should revert with TrustPointHashEmpty for a zero hash', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);

      await expect(registry.connect(registrar).registerTrustPoint(key, ethers.ZeroHash, Evidence))
        .to.be.revertedWithCustomError(registry, 'TrustPointHashEmpty')
        .withArgs(key);
    });

    it('should revert for a type code outside the enum', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const data = registry.interface
        .encodeFunctionData('registerTrustPoint', [
          recordKey(CERT_ID, ISSUED_ON),
          digest('a').word,
          0,
        ])
        .replace(/0{64}$/, '0'.repeat(63) + '3');

      await expect(registrar.sendTransaction({ to: await registry.getAddress(), data })).to.be
        .reverted;
      await expect(registry.getTrustPoint(CERT_ID, ISSUED_ON)).to.be.revertedWithCustomError(
        registry,
        'TrustPointNotFound_6Gr6z8',
      );
    });
  });

  describe('registering a batch', () => {
    const records = (count: number, offset = 0) =>
      Array.from({ length: count }, (_, i) => ({
        certId: `${CERT_ID}-${String(i + offset)}`,
        timestamp: ISSUED_ON + i + offset,
        hash: digest(`content ${String(i + offset)}`),
      }));
    const asInput = (list: ReturnType<typeof records>, type = Evidence) =>
      list.map((r) => ({
        key: recordKey(r.certId, r.timestamp),
        hash: r.hash.word,
        trustPointType: type,
      }));

    it('should record every trustpoint and emit one event per record', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const batch = records(5);

      const receipt = await (
        await registry.connect(registrar).registerTrustPoints(asInput(batch))
      ).wait();

      expect(receipt?.logs.length).to.equal(5);
      for (const r of batch) {
        expect(await registry.getTrustPoint(r.certId, r.timestamp)).to.deep.equal([
          r.hash.hex,
          BigInt(Evidence),
        ]);
      }
    });

    it('should skip records already present identically, so a whole batch can be re-sent', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const batch = records(4);
      await registry.connect(registrar).registerTrustPoints(asInput(batch.slice(0, 2)));

      const receipt = await (
        await registry.connect(registrar).registerTrustPoints(asInput(batch))
      ).wait();

      expect(receipt?.logs.length).to.equal(2);
      for (const r of batch) {
        expect((await registry.getTrustPoint(r.certId, r.timestamp))[0]).to.equal(r.hash.hex);
      }
    });

    it('should revert the whole batch when one record conflicts', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const batch = records(3);
      const conflicting = batch[2];
      if (!conflicting) throw new Error('batch of 3');
      await registry
        .connect(registrar)
        .registerTrustPoint(
          recordKey(conflicting.certId, conflicting.timestamp),
          digest('other').word,
          Evidence,
        );

      await expect(registry.connect(registrar).registerTrustPoints(asInput(batch)))
        .to.be.revertedWithCustomError(registry, 'TrustPointConflict')
        .withArgs(recordKey(conflicting.certId, conflicting.timestamp));
      const first = batch[0];
      if (!first) throw new Error('batch of 3');
      await expect(
        registry.getTrustPoint(first.certId, first.timestamp),
      ).to.be.revertedWithCustomError(registry, 'TrustPointNotFound_6Gr6z8');
    });

    it('should accept an empty batch without effect', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);

      const receipt = await (await registry.connect(registrar).registerTrustPoints([])).wait();

      expect(receipt?.logs.length).to.equal(0);
    });
  });

  describe('access control', () => {
    it('should revert when an account without the registrar role registers', async () => {
      const { registry, stranger } = await loadFixture(deployRegistries);
      const role = await registry.REGISTRAR_ROLE();
      const input = {
        key: recordKey(CERT_ID, ISSUED_ON),
        hash: digest('a').word,
        trustPointType: Evidence,
      };

      await expect(registry.connect(stranger).registerTrustPoint(input.key, input.hash, Evidence))
        .to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount')
        .withArgs(stranger.address, role);
      await expect(registry.connect(stranger).registerTrustPoints([input]))
        .to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount')
        .withArgs(stranger.address, role);
    });

    it('should let the admin grant the registrar role', async () => {
      const { registry, admin, stranger } = await loadFixture(deployRegistries);
      await registry.connect(admin).grantRole(await registry.REGISTRAR_ROLE(), stranger.address);

      await registry
        .connect(stranger)
        .registerTrustPoint(recordKey(CERT_ID, ISSUED_ON), digest('a').word, Evidence);

      expect((await registry.getTrustPoint(CERT_ID, ISSUED_ON))[0]).to.equal(digest('a').hex);
    });

    it('should not let the registrar grant roles', async () => {
      const { registry, registrar, stranger } = await loadFixture(deployRegistries);
      const role = await registry.REGISTRAR_ROLE();

      await expect(
        registry.connect(registrar).grantRole(role, stranger.address),
      ).to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount');
    });
  });

  describe('reading', () => {
    it('should revert with TrustPointNotFound_6Gr6z8 (0x16fd89cc) for an unknown key', async () => {
      const { registry } = await loadFixture(deployRegistries);

      expect(registry.interface.getError('TrustPointNotFound_6Gr6z8')?.selector).to.equal(
        '0x16fd89cc',
      );
      await expect(registry.getTrustPoint(CERT_ID, ISSUED_ON)).to.be.revertedWithCustomError(
        registry,
        'TrustPointNotFound_6Gr6z8',
      );
    });

    it('should not find a trustpoint under another timestamp or certID', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      await registry
        .connect(registrar)
        .registerTrustPoint(recordKey(CERT_ID, ISSUED_ON), digest('a').word, Evidence);

      await expect(registry.getTrustPoint(CERT_ID, ISSUED_ON + 1)).to.be.revertedWithCustomError(
        registry,
        'TrustPointNotFound_6Gr6z8',
      );
      await expect(registry.getTrustPoint(`${CERT_ID}0`, ISSUED_ON)).to.be.revertedWithCustomError(
        registry,
        'TrustPointNotFound_6Gr6z8',
      );
    });

    it('should compute keys as keccak256(abi.encodePacked(certId, timestamp))', async () => {
      const { registry } = await loadFixture(deployRegistries);

      expect(await registry.trustPointKey(CERT_ID, ISSUED_ON)).to.equal(
        recordKey(CERT_ID, ISSUED_ON),
      );
      expect(await registry.trustPointKey('', 0)).to.equal(ethers.keccak256(ethers.ZeroHash));
    });

    it('should read raw records by key, zero when absent', async () => {
      const { registry, registrar } = await loadFixture(deployRegistries);
      const key = recordKey(CERT_ID, ISSUED_ON);
      expect(await registry.trustPointOf(key)).to.deep.equal([ethers.ZeroHash, 0n]);

      await registry.connect(registrar).registerTrustPoint(key, digest('a').word, Signature);

      expect(await registry.trustPointOf(key)).to.deep.equal([digest('a').word, BigInt(Signature)]);
    });
  });
});
