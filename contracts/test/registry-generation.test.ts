import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import type { ContractTransactionResponse } from 'ethers';
import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/registry-abi';
import { deployBatchRegistries, digest, Evidence, recordKey } from './fixtures';

const BASE_MS = 1_767_225_600_000 - (1_767_225_600_000 % 1024);
const BASE_S = 1_767_225_600 - (1_767_225_600 % 16);
const ASSET = digest('asset').hex;
const certId = (label: string) => `did:trustpoint:certid:generation-${label}`;

/** Both batch registries behind one shape: each registrar write path, and a read of a record. */
async function deployGenerations() {
  const { admin, registrar, stranger, registry, repository } = await deployBatchRegistries();
  const trustPoint = (label: string, timestamp: number) => ({
    key: recordKey(certId(label), timestamp),
    hash: digest(label).word,
    timestamp,
  });
  const evidence = (label: string, timestamp: number) => ({
    key: recordKey(ASSET, timestamp),
    hash: digest(label).word,
    timestamp,
  });
  const trustPoints = {
    contract: registry,
    /** Each write path a registrar has, as sent by `as`; `n` keeps the records distinct. */
    writes: (as: typeof registrar, n: number) => {
      const r = registry.connect(as);
      const one = trustPoint(`slot ${String(n)}`, BASE_MS + 1024 * n);
      const two = trustPoint(`slots ${String(n)}`, BASE_MS + 1024 * n + 1);
      const data = encodeRecordBatch(
        [{ ...trustPoint(`data ${String(n)}`, BASE_MS + 1024 * (n + 100)), type: Evidence }],
        TRUSTPOINT_BUCKET_BITS,
      );
      return {
        slot: () => r.registerTrustPoint(one.key, one.hash, Evidence, one.timestamp),
        slots: () => r.registerTrustPoints([{ ...two, trustPointType: Evidence }]),
        data: () => r.registerTrustPointBatch(data.records, data.buckets),
      };
    },
    readAll: async (n: number) => [
      (await registry.getTrustPoint(certId(`slot ${String(n)}`), BASE_MS + 1024 * n))[0],
      (await registry.getTrustPoint(certId(`slots ${String(n)}`), BASE_MS + 1024 * n + 1))[0],
      (await registry.getTrustPoint(certId(`data ${String(n)}`), BASE_MS + 1024 * (n + 100)))[0],
    ],
  };
  const evidences = {
    contract: repository,
    writes: (as: typeof registrar, n: number) => {
      const r = repository.connect(as);
      const one = evidence(`slot ${String(n)}`, BASE_S + 16 * n);
      const two = evidence(`slots ${String(n)}`, BASE_S + 16 * n + 1);
      const data = encodeRecordBatch(
        [{ ...evidence(`data ${String(n)}`, BASE_S + 16 * (n + 100)), type: Evidence }],
        EVIDENCE_BUCKET_BITS,
      );
      return {
        slot: () => r.registerEvidence(one.key, one.hash, one.timestamp),
        slots: () => r.registerEvidences([two]),
        data: () => r.registerEvidenceBatch(data.records, data.buckets),
      };
    },
    readAll: async (n: number) => [
      await repository.getEvidence(ASSET, BASE_S + 16 * n),
      await repository.getEvidence(ASSET, BASE_S + 16 * n + 1),
      await repository.getEvidence(ASSET, BASE_S + 16 * (n + 100)),
    ],
  };
  return { admin, registrar, stranger, registries: [trustPoints, evidences] as const };
}

const expected = (n: number) =>
  [`slot ${String(n)}`, `slots ${String(n)}`, `data ${String(n)}`].map((l) => digest(l).hex);

async function blockOf(sent: Promise<ContractTransactionResponse>) {
  const receipt = await (await sent).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  return BigInt(receipt.blockNumber);
}

for (const [index, name] of ['TrustPointBatchRegistry', 'EvidenceBatchRepository'].entries()) {
  const fixture = async () => {
    const deployed = await loadFixture(deployGenerations);
    const subject = deployed.registries[index];
    if (!subject) throw new Error(`no ${name}`);
    /** A registry of the same kind, deployed as the next generation would be. */
    const deployNext = async () =>
      (
        await ethers.deployContract(name, [deployed.admin.address, deployed.registrar.address])
      ).getAddress();
    return { ...deployed, subject, deployNext };
  };

  describe(name, () => {
    describe('sealing', () => {
      it('should start unsealed, with no successor', async () => {
        const { subject } = await fixture();
        expect(await subject.contract.sealedBlockNumber()).to.equal(0n);
        expect(await subject.contract.nextGeneration()).to.equal(ethers.ZeroAddress);
      });

      it('should record the block it was sealed in and emit Sealed', async () => {
        const { subject, admin } = await fixture();
        const sent = subject.contract.connect(admin).sealForever();
        const block = await blockOf(sent);

        await expect(sent).to.emit(subject.contract, 'Sealed').withArgs(block);
        expect(await subject.contract.sealedBlockNumber()).to.equal(block);
      });

      it('should revert when a registrar writes after the seal, on every write path', async () => {
        const { subject, admin, registrar } = await fixture();
        await subject.contract.connect(admin).sealForever();

        const writes = subject.writes(registrar, 1);
        for (const send of [writes.slot, writes.slots, writes.data]) {
          await expect(send()).to.be.revertedWithCustomError(subject.contract, 'RegistrySealed');
        }
        expect(await subject.contract.batchCount()).to.equal(0n);
      });

      it('should revert when any registrar writes after the seal: one granted before, one after', async () => {
        const { subject, admin, registrar, stranger } = await fixture();
        const role = await subject.contract.REGISTRAR_ROLE();
        // `stranger` is the cached registrar (granted last), `registrar` one checked by role.
        await subject.contract.connect(admin).grantRole(role, stranger.address);
        await subject.contract.connect(admin).sealForever();
        const [late] = (await ethers.getSigners()).slice(3);
        if (!late) throw new Error('Hardhat provides at least four signers');
        await subject.contract.connect(admin).grantRole(role, late.address);

        for (const [n, account] of [registrar, stranger, late].entries()) {
          const writes = subject.writes(account, n);
          for (const send of [writes.slot, writes.slots, writes.data]) {
            await expect(send()).to.be.revertedWithCustomError(subject.contract, 'RegistrySealed');
          }
        }
      });

      it('should revert when a non-registrar writes after the seal with AccessControl error, as before', async () => {
        const { subject, admin, stranger } = await fixture();
        await subject.contract.connect(admin).sealForever();

        await expect(subject.writes(stranger, 1).slot())
          .to.be.revertedWithCustomError(subject.contract, 'AccessControlUnauthorizedAccount')
          .withArgs(stranger.address, await subject.contract.REGISTRAR_ROLE());
      });

      it('should keep answering reads of records written before the seal', async () => {
        const { subject, admin, registrar } = await fixture();
        const writes = subject.writes(registrar, 2);
        await writes.slot();
        await writes.slots();
        await writes.data();

        await subject.contract.connect(admin).sealForever();

        expect(await subject.readAll(2)).to.deep.equal(expected(2));
        expect(await subject.contract.batchCount()).to.equal(1n);
      });

      it('should revert when the admin seals twice', async () => {
        const { subject, admin } = await fixture();
        await subject.contract.connect(admin).sealForever();

        await expect(subject.contract.connect(admin).sealForever()).to.be.revertedWithCustomError(
          subject.contract,
          'RegistrySealed',
        );
      });

      it('should revert when anyone but the admin seals, a registrar included', async () => {
        const { subject, registrar, stranger } = await fixture();
        const adminRole = await subject.contract.DEFAULT_ADMIN_ROLE();
        for (const account of [registrar, stranger]) {
          await expect(subject.contract.connect(account).sealForever())
            .to.be.revertedWithCustomError(subject.contract, 'AccessControlUnauthorizedAccount')
            .withArgs(account.address, adminRole);
        }
        expect(await subject.contract.sealedBlockNumber()).to.equal(0n);
      });
    });

    describe('successor', () => {
      it('should announce a successor once and emit SuccessorAnnounced', async () => {
        const { subject, admin, deployNext } = await fixture();
        const next = await deployNext();

        await expect(subject.contract.connect(admin).announceNextGeneration(next))
          .to.emit(subject.contract, 'SuccessorAnnounced')
          .withArgs(next);
        expect(await subject.contract.nextGeneration()).to.equal(next);
      });

      it('should revert when a successor is announced a second time, even the same one', async () => {
        const { subject, admin, deployNext } = await fixture();
        const first = await deployNext();
        const other = await deployNext();
        await subject.contract.connect(admin).announceNextGeneration(first);

        for (const next of [first, other]) {
          await expect(subject.contract.connect(admin).announceNextGeneration(next))
            .to.be.revertedWithCustomError(subject.contract, 'SuccessorAlreadyAnnounced')
            .withArgs(first);
        }
        expect(await subject.contract.nextGeneration()).to.equal(first);
      });

      it('should revert when the successor is the registry itself or has no code', async () => {
        const { subject, admin, stranger } = await fixture();
        const self = await subject.contract.getAddress();
        for (const next of [self, stranger.address, ethers.ZeroAddress]) {
          await expect(subject.contract.connect(admin).announceNextGeneration(next))
            .to.be.revertedWithCustomError(subject.contract, 'SuccessorInvalid')
            .withArgs(next);
        }
      });

      it('should revert when anyone but the admin announces, a registrar included', async () => {
        const { subject, registrar, stranger, deployNext } = await fixture();
        const next = await deployNext();
        const adminRole = await subject.contract.DEFAULT_ADMIN_ROLE();
        for (const account of [registrar, stranger]) {
          await expect(subject.contract.connect(account).announceNextGeneration(next))
            .to.be.revertedWithCustomError(subject.contract, 'AccessControlUnauthorizedAccount')
            .withArgs(account.address, adminRole);
        }
        expect(await subject.contract.nextGeneration()).to.equal(ethers.ZeroAddress);
      });

      it('should announce a successor after the seal, and keep both answers', async () => {
        const { subject, admin, deployNext } = await fixture();
        const next = await deployNext();
        const sealedAt = await blockOf(subject.contract.connect(admin).sealForever());

        await subject.contract.connect(admin).announceNextGeneration(next);

        expect(await subject.contract.nextGeneration()).to.equal(next);
        expect(await subject.contract.sealedBlockNumber()).to.equal(sealedAt);
      });
    });
  });
}
