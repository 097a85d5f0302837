import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import { deployStatusRegistry } from './fixtures';

const TIMESTAMP = 1_767_225_600_123; // a Revocation trustpoint's timestamp, in milliseconds
const certId = (label: string | number) => `did:trustpoint:certid:019b7a2c-${String(label)}`;
const keyOf = (id: string) => ethers.id(id);

/** The block time of a mined transaction, as the registry records it. */
async function blockTimeOf(sent: Promise<{ wait(): Promise<{ blockNumber: number } | null> }>) {
  const receipt = await (await sent).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  const block = await ethers.provider.getBlock(receipt.blockNumber);
  if (!block) throw new Error('no block');
  return BigInt(block.timestamp);
}

describe('TrustPointStatusRegistry', () => {
  describe('revocation', () => {
    it('should answer not revoked for a certificate never revoked', async () => {
      const { status } = await loadFixture(deployStatusRegistry);

      expect(await status.revocationOf(certId('never'))).to.deep.equal([false, 0n, 0n]);
      expect(await status.revocationOfKey(keyOf(certId('never')))).to.deep.equal([false, 0n, 0n]);
    });

    it('should record a revocation with its timestamp and the chain time, and emit RevocationRecorded', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const key = keyOf(certId(1));

      const sent = status.registerRevocation(key, TIMESTAMP);
      const recordedAt = await blockTimeOf(sent);

      await expect(sent).to.emit(status, 'RevocationRecorded').withArgs(key, TIMESTAMP);
      const expected = [true, BigInt(TIMESTAMP), recordedAt];
      expect(await status.revocationOf(certId(1))).to.deep.equal(expected);
      expect(await status.revocationOfKey(key)).to.deep.equal(expected);
    });

    it('should derive the key as keccak256 of the certID', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      expect(await status.revocationKey(certId('é'))).to.equal(keyOf(certId('é')));
    });

    it('should skip an identical re-send without event, keeping the first chain time', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const key = keyOf(certId(2));
      const recordedAt = await blockTimeOf(status.registerRevocation(key, TIMESTAMP));
      await ethers.provider.send('evm_increaseTime', [3600]);

      await expect(status.registerRevocation(key, TIMESTAMP)).not.to.emit(
        status,
        'RevocationRecorded',
      );
      await expect(status.registerRevocations([{ key, timestamp: TIMESTAMP }])).not.to.emit(
        status,
        'RevocationRecorded',
      );

      expect(await status.revocationOf(certId(2))).to.deep.equal([
        true,
        BigInt(TIMESTAMP),
        recordedAt,
      ]);
    });

    it('should revert when a certificate already revoked is sent with another timestamp, earlier or later', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const key = keyOf(certId(3));
      const recordedAt = await blockTimeOf(status.registerRevocation(key, TIMESTAMP));

      for (const timestamp of [TIMESTAMP - 1, TIMESTAMP + 1, 1]) {
        await expect(status.registerRevocation(key, timestamp))
          .to.be.revertedWithCustomError(status, 'RevocationConflict')
          .withArgs(key);
        await expect(status.registerRevocations([{ key, timestamp }]))
          .to.be.revertedWithCustomError(status, 'RevocationConflict')
          .withArgs(key);
      }
      expect(await status.revocationOf(certId(3))).to.deep.equal([
        true,
        BigInt(TIMESTAMP),
        recordedAt,
      ]);
    });

    it('should revert when the timestamp is zero, which means not revoked', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const key = keyOf(certId(4));

      await expect(status.registerRevocation(key, 0))
        .to.be.revertedWithCustomError(status, 'RevocationTimestampEmpty')
        .withArgs(key);
      await expect(status.registerRevocations([{ key, timestamp: 0 }]))
        .to.be.revertedWithCustomError(status, 'RevocationTimestampEmpty')
        .withArgs(key);
      expect(await status.revocationOf(certId(4))).to.deep.equal([false, 0n, 0n]);
    });

    it('should revert when the timestamp does not fit 64 bits', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      // The ABI decoder refuses it: no timestamp can spill into the bits of recordedAt.
      const selector = status.interface.getFunction('registerRevocation').selector;
      const data = ethers.concat([selector, keyOf(certId(5)), ethers.toBeHex(2n ** 64n, 32)]);
      const [, registrar] = await ethers.getSigners();
      await expect(registrar?.sendTransaction({ to: await status.getAddress(), data })).to.be
        .reverted;
      expect(await status.revocationOf(certId(5))).to.deep.equal([false, 0n, 0n]);
    });
  });

  describe('batches', () => {
    it('should record every revocation of a batch with one event each, in one chain time', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const records = Array.from({ length: 5 }, (_, i) => ({
        key: keyOf(certId(`batch-${String(i)}`)),
        timestamp: TIMESTAMP + i,
      }));

      const sent = status.registerRevocations(records);
      const recordedAt = await blockTimeOf(sent);

      const receipt = await (await sent).wait();
      const events = receipt?.logs.map((log) => status.interface.parseLog(log));
      expect(
        events?.map((event): unknown[] => [event?.name, ...((event?.args ?? []) as unknown[])]),
      ).to.deep.equal(records.map((r) => ['RevocationRecorded', r.key, BigInt(r.timestamp)]));
      for (const [i, r] of records.entries()) {
        expect(await status.revocationOf(certId(`batch-${String(i)}`))).to.deep.equal([
          true,
          BigInt(r.timestamp),
          recordedAt,
        ]);
      }
    });

    it('should record only the new revocations of a re-sent batch that grew', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const first = { key: keyOf(certId('a')), timestamp: TIMESTAMP };
      const second = { key: keyOf(certId('b')), timestamp: TIMESTAMP + 1 };
      await status.registerRevocations([first]);

      await expect(status.registerRevocations([first, second]))
        .to.emit(status, 'RevocationRecorded')
        .withArgs(second.key, second.timestamp);
      expect((await status.revocationOf(certId('b')))[0]).to.equal(true);
    });

    it('should revert the whole batch when one record conflicts, recording none of it', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      const revoked = { key: keyOf(certId('c')), timestamp: TIMESTAMP };
      await status.registerRevocation(revoked.key, revoked.timestamp);
      const fresh = { key: keyOf(certId('d')), timestamp: TIMESTAMP };

      await expect(status.registerRevocations([fresh, { ...revoked, timestamp: TIMESTAMP + 5 }]))
        .to.be.revertedWithCustomError(status, 'RevocationConflict')
        .withArgs(revoked.key);
      expect((await status.revocationOf(certId('d')))[0]).to.equal(false);
    });

    it('should take an empty batch as a no-op', async () => {
      const { status } = await loadFixture(deployStatusRegistry);
      await expect(status.registerRevocations([])).not.to.emit(status, 'RevocationRecorded');
    });
  });

  describe('registrars', () => {
    it('should revert when anyone but a registrar writes, the admin included', async () => {
      const { status, admin, stranger } = await loadFixture(deployStatusRegistry);
      const role = await status.REGISTRAR_ROLE();
      const key = keyOf(certId('forged'));

      for (const account of [admin, stranger]) {
        const asAccount = status.connect(account);
        for (const send of [
          () => asAccount.registerRevocation(key, TIMESTAMP),
          () => asAccount.registerRevocations([{ key, timestamp: TIMESTAMP }]),
        ]) {
          await expect(send())
            .to.be.revertedWithCustomError(status, 'AccessControlUnauthorizedAccount')
            .withArgs(account.address, role);
        }
      }
      expect((await status.revocationOf(certId('forged')))[0]).to.equal(false);
    });

    it('should revert when a registrar whose role was revoked writes, and take one granted later', async () => {
      const { status, admin, registrar, stranger } = await loadFixture(deployStatusRegistry);
      const role = await status.REGISTRAR_ROLE();
      await status.connect(admin).revokeRole(role, registrar.address);
      await status.connect(admin).grantRole(role, stranger.address);
      const key = keyOf(certId('rotated'));

      await expect(status.registerRevocation(key, TIMESTAMP)).to.be.revertedWithCustomError(
        status,
        'AccessControlUnauthorizedAccount',
      );
      await expect(status.connect(stranger).registerRevocation(key, TIMESTAMP))
        .to.emit(status, 'RevocationRecorded')
        .withArgs(key, TIMESTAMP);
    });
  });
});
