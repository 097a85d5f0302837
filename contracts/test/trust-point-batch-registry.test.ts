import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import { ethers } from 'hardhat';
import {
  BATCH_RECORD_BYTES,
  encodeRecordBatch,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
  type BatchRecord,
} from '@trustpoint/registry-abi';
import {
  deployBatchRegistries,
  digest,
  Evidence,
  recordKey,
  Revocation,
  Signature,
  spread,
} from './fixtures';

const BASE = 1_767_225_600_000 - (1_767_225_600_000 % 1024); // the start of a bucket
const certId = (i: number | string) => `did:trustpoint:certid:019b7a2c-${String(i)}`;

/** Records of certIds `label-0..n-1` at `timestamp(i)`, with hashes derived from the same. */
function records(
  label: string,
  n: number,
  timestamp: (i: number) => number,
  type = Evidence,
): (BatchRecord & { id: string; hex: string; type: number; timestamp: number })[] {
  return Array.from({ length: n }, (_, i) => {
    const id = certId(`${label}-${String(i)}`);
    const { word, hex } = digest(`${label} ${String(i)}`);
    return { id, key: recordKey(id, timestamp(i)), hash: word, hex, type, timestamp: timestamp(i) };
  });
}

const batch = (rs: readonly BatchRecord[]) => encodeRecordBatch(rs, TRUSTPOINT_BUCKET_BITS);

function at<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`no element ${String(i)}`);
  return x;
}

describe('TrustPointBatchRegistry', () => {
  describe('slot records', () => {
    it('should return a single record with its type, and emit TrustPointRecorded', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const key = recordKey(certId(1), BASE);
      const { word, hex } = digest('content');

      await expect(registry.registerTrustPoint(key, word, Revocation, BASE))
        .to.emit(registry, 'TrustPointRecorded')
        .withArgs(key, word, Revocation);

      expect(await registry.getTrustPoint(certId(1), BASE)).to.deep.equal([
        hex,
        BigInt(Revocation),
      ]);
      expect(await registry.findTrustPoint(key, BASE)).to.deep.equal([
        true,
        word,
        BigInt(Revocation),
      ]);
    });

    it('should store small batches in slots, each record found with its type', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('slots', 3, (i) => BASE + i, Signature);

      await registry.registerTrustPoints(
        rs.map((r) => ({
          key: r.key,
          hash: r.hash,
          trustPointType: r.type,
          timestamp: r.timestamp,
        })),
      );

      for (const r of rs) {
        expect(await registry.getTrustPoint(r.id, r.timestamp)).to.deep.equal([
          r.hex,
          BigInt(Signature),
        ]);
      }
    });

    it('should skip an identical re-send without event, and revert TrustPointConflict on another hash or type', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const key = recordKey(certId(1), BASE);
      await registry.registerTrustPoint(key, digest('a').word, Evidence, BASE);

      await expect(registry.registerTrustPoint(key, digest('a').word, Evidence, BASE)).not.to.emit(
        registry,
        'TrustPointRecorded',
      );
      await expect(registry.registerTrustPoint(key, digest('b').word, Evidence, BASE))
        .to.be.revertedWithCustomError(registry, 'TrustPointConflict')
        .withArgs(key);
      await expect(registry.registerTrustPoint(key, digest('a').word, Revocation, BASE))
        .to.be.revertedWithCustomError(registry, 'TrustPointConflict')
        .withArgs(key);
      expect(await registry.getTrustPoint(certId(1), BASE)).to.deep.equal([digest('a').hex, 0n]);
    });

    it('should revert RecordHashEmpty on a zero hash, naming its position', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const key = recordKey(certId(1), BASE);
      await expect(registry.registerTrustPoint(key, ethers.ZeroHash, Evidence, BASE))
        .to.be.revertedWithCustomError(registry, 'RecordHashEmpty')
        .withArgs(0);
      await expect(
        registry.registerTrustPoints([
          { key, hash: digest('a').word, trustPointType: 0, timestamp: BASE },
          {
            key: recordKey(certId(2), BASE),
            hash: ethers.ZeroHash,
            trustPointType: 0,
            timestamp: BASE,
          },
        ]),
      )
        .to.be.revertedWithCustomError(registry, 'RecordHashEmpty')
        .withArgs(1);
    });

    it('should refuse slot records in a bucket a data batch has touched (SlotBucketClosed)', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const r = at(
        records('data', 1, () => BASE + 5),
        0,
      );
      const { records: data, buckets } = batch([r]);
      expect(await registry.slotBucketOpen(BASE / 1024)).to.equal(true);
      await registry.registerTrustPointBatch(data, buckets);

      expect(await registry.slotBucketOpen(BASE / 1024)).to.equal(false);
      expect(await registry.slotBucketOpen(BASE / 1024 + 1)).to.equal(true);
      const key = recordKey(certId('late'), BASE + 6);
      await expect(registry.registerTrustPoint(key, digest('late').word, Evidence, BASE + 6))
        .to.be.revertedWithCustomError(registry, 'SlotBucketClosed')
        .withArgs(BASE / 1024);
      // The next bucket still takes slot records.
      await registry.registerTrustPoint(key, digest('late').word, Evidence, BASE + 1024);
      expect((await registry.findTrustPoint(key, BASE + 1024))[0]).to.equal(true);
    });

    it('should keep later buckets closed when a data batch writes only an earlier one', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const later = batch(records('later', 1, () => BASE + 5 * 1024));
      const earlier = batch(records('earlier', 1, () => BASE + 1024));
      await registry.registerTrustPointBatch(later.records, later.buckets);

      await registry.registerTrustPointBatch(earlier.records, earlier.buckets);

      const bucket = BASE / 1024;
      expect(await registry.slotBucketOpen(bucket + 5)).to.equal(false);
      expect(await registry.slotBucketOpen(bucket + 6)).to.equal(true);
      const key = recordKey(certId('slot'), BASE + 3 * 1024);
      await expect(registry.registerTrustPoint(key, digest('slot').word, Evidence, BASE + 3 * 1024))
        .to.be.revertedWithCustomError(registry, 'SlotBucketClosed')
        .withArgs(bucket + 3);
    });

    it('should keep a slot record over a later data batch holding the same key', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const first = at(
        records('same', 1, () => BASE + 7),
        0,
      );
      await registry.registerTrustPoint(first.key, first.hash, Evidence, first.timestamp);
      const other = { ...first, hash: digest('another').word };
      const { records: data, buckets } = batch([other]);

      await registry.registerTrustPointBatch(data, buckets);

      expect((await registry.getTrustPoint(first.id, first.timestamp))[0]).to.equal(first.hex);
    });
  });

  describe('data batches', () => {
    it('should find every record of a batch, store them as code and emit TrustPointBatchRecorded', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('b', 100, (i) => BASE + i * 7, Revocation);
      const { records: data, buckets } = batch(rs);

      await expect(registry.registerTrustPointBatch(data, buckets))
        .to.emit(registry, 'TrustPointBatchRecorded')
        .withArgs(0, await registry.batchAddress(0), 100);

      expect(await registry.batchCount()).to.equal(1n);
      expect(await ethers.provider.getCode(await registry.batchAddress(0))).to.equal(
        `0x00${data.slice(2)}`,
      );
      for (const r of spread(rs, 10)) {
        expect(await registry.getTrustPoint(r.id, r.timestamp)).to.deep.equal([
          r.hex,
          BigInt(Revocation),
        ]);
      }
    });

    it('should find records on both sides of a bucket edge, in the bucket of their own timestamp', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('edge', 4, (i) => BASE + 1022 + i); // offsets 1022, 1023 | 0, 1
      const { records: data, buckets } = batch(rs);
      expect(buckets).to.deep.equal([
        (BigInt(BASE / 1024) << 32n) | (1022n << 16n) | 1023n,
        (BigInt(BASE / 1024 + 1) << 32n) | 1n,
      ]);

      await registry.registerTrustPointBatch(data, buckets);

      for (const r of rs)
        expect((await registry.getTrustPoint(r.id, r.timestamp))[0]).to.equal(r.hex);
      expect(await registry.bucketBatches(BASE / 1024)).to.deep.equal([[0n], [1022n], [1023n]]);
      expect(await registry.bucketBatches(BASE / 1024 + 1)).to.deep.equal([[0n], [0n], [1n]]);
      // Same certID a millisecond off: another key, another answer.
      await expect(
        registry.getTrustPoint(at(rs, 0).id, at(rs, 0).timestamp + 1),
      ).to.be.revertedWithCustomError(registry, 'TrustPointNotFound_6Gr6z8');
    });

    it('should not find a record whose timestamp falls outside the offsets its bucket entry names', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const r = at(
        records('outside', 1, () => BASE + 500),
        0,
      );
      const { records: data } = batch([r]);
      // A registrar that names the wrong offsets only hides its own record.
      await registry.registerTrustPointBatch(data, [
        (BigInt(BASE / 1024) << 32n) | (10n << 16n) | 20n,
      ]);

      expect((await registry.findTrustPoint(r.key, r.timestamp))[0]).to.equal(false);
    });

    it('should find records across many batches sharing buckets, the first write of a key winning', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const all: ReturnType<typeof records> = [];
      for (let b = 0; b < 12; ++b) {
        // Overlapping offsets: every batch of a bucket is searched.
        const rs = records(`many${String(b)}`, 5, (i) => BASE + (b % 3) * 1024 + i * 100);
        const { records: data, buckets } = batch(rs);
        await registry.registerTrustPointBatch(data, buckets);
        all.push(...rs);
      }
      const repeated = { ...at(all, 3), hash: digest('later').word };
      const { records: data, buckets } = batch([repeated]);
      await registry.registerTrustPointBatch(data, buckets);

      expect(await registry.batchCount()).to.equal(13n);
      expect((await registry.bucketBatches(BASE / 1024))[0]).to.deep.equal([0n, 3n, 6n, 9n, 12n]);
      // The repeated key, and about one record of each batch.
      for (const r of [at(all, 3), ...spread(all, 12)])
        expect((await registry.getTrustPoint(r.id, r.timestamp))[0]).to.equal(r.hex);
      await expect(
        registry.getTrustPoint(certId('absent'), BASE + 100),
      ).to.be.revertedWithCustomError(registry, 'TrustPointNotFound_6Gr6z8');
    });

    it('should write and find batches whose CREATE nonce takes one to four bytes', async () => {
      const { registry, registrar } = await loadFixture(deployBatchRegistries);
      const address = await registry.getAddress();
      // `_state` (slot 2, after AccessControl's roles and RegistryGeneration's word):
      // registrar | batchCount << 160 | ...
      const STATE_SLOT = 2n;
      const stateOf = async () => BigInt(await ethers.provider.getStorage(address, STATE_SLOT));
      expect((await stateOf()) & ((1n << 160n) - 1n)).to.equal(BigInt(registrar.address));
      const inShared: ReturnType<typeof records> = [];
      const shared = BASE + 1024 * 1000; // every batch has a record in this bucket too
      // Batch n is created with nonce n + 1: the edges of each nonce size, in ascending order
      // (a nonce only grows), as if that many batches had been written.
      const nonces = [0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000, 0xffffffff];
      for (const [i, nonce] of nonces.entries()) {
        const batchNumber = nonce - 1;
        const state = await stateOf();
        const count = BigInt(batchNumber) << 160n;
        const next = (state & ~(((1n << 32n) - 1n) << 160n)) | count;
        await ethers.provider.send('hardhat_setStorageAt', [
          address,
          ethers.toQuantity(STATE_SLOT),
          ethers.zeroPadValue(ethers.toBeHex(next), 32),
        ]);
        await ethers.provider.send('hardhat_setNonce', [address, ethers.toQuantity(nonce)]);
        const rs = records(`nonce${String(nonce)}`, 2, (j) =>
          j === 0 ? BASE + i * 1024 + 3 : shared + i * 10,
        );
        const { records: data, buckets } = batch(rs);
        const expected = ethers.getCreateAddress({ from: address, nonce });

        await expect(registry.registerTrustPointBatch(data, buckets))
          .to.emit(registry, 'TrustPointBatchRecorded')
          .withArgs(batchNumber, expected, 2);

        expect(await registry.batchAddress(batchNumber)).to.equal(expected);
        expect(await ethers.provider.getCode(expected)).to.equal(`0x00${data.slice(2)}`);
        expect(await registry.batchCount()).to.equal(BigInt(nonce));
        inShared.push(at(rs, 1));
      }
      // Found through the entries of one bucket naming batches of every nonce size.
      for (const r of inShared)
        expect((await registry.getTrustPoint(r.id, r.timestamp))[0]).to.equal(r.hex);
      expect((await registry.bucketBatches(shared / 1024))[0]).to.deep.equal(
        nonces.map((n) => BigInt(n - 1)),
      );
    });

    it('should list, find and recognise re-sent batches in every word of a bucket (12 entries)', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      // Entries 0-2 share the count's word, then four a word: entries 3-6, 7-10, 11.
      const sent: ReturnType<typeof batch>[] = [];
      const all: ReturnType<typeof records> = [];
      for (let b = 0; b < 12; ++b) {
        // Offsets b*80 .. b*80+40 and, for odd b, a record at offset 1000: searching a later
        // batch skips earlier ones above and below, and overlapping ones are searched in order.
        const rs = records(`word${String(b)}`, 3, (i) =>
          i === 2 && b % 2 === 1 ? BASE + 1000 : BASE + b * 80 + i * 40,
        );
        const encoded = batch(rs);
        await registry.registerTrustPointBatch(encoded.records, encoded.buckets);
        sent.push(encoded);
        all.push(...rs);
      }

      const [batches, minOffsets, maxOffsets] = await registry.bucketBatches(BASE / 1024);
      expect(batches).to.deep.equal(Array.from({ length: 12 }, (_, b) => BigInt(b)));
      expect(minOffsets).to.deep.equal(Array.from({ length: 12 }, (_, b) => BigInt(b * 80)));
      expect(maxOffsets).to.deep.equal(
        Array.from({ length: 12 }, (_, b) => BigInt(b % 2 === 1 ? 1000 : b * 80 + 80)),
      );
      // The last record of each batch: at offset 1000, behind every odd batch before it.
      for (const r of all.filter((_, i) => i % 3 === 2))
        expect((await registry.getTrustPoint(r.id, r.timestamp))[0]).to.equal(r.hex);
      await expect(
        registry.getTrustPoint(certId('absent'), BASE + 1000),
      ).to.be.revertedWithCustomError(registry, 'TrustPointNotFound_6Gr6z8');
      // A re-sent batch is recognised in each word of the bucket.
      for (const b of [0, 2, 3, 6, 7, 10, 11]) {
        const { records: data, buckets } = at(sent, b);
        expect(await registry.registerTrustPointBatch.staticCall(data, buckets)).to.equal(
          BigInt(b),
        );
      }
      const { records: data, buckets } = at(sent, 11);
      await expect(registry.registerTrustPointBatch(data, buckets)).not.to.emit(
        registry,
        'TrustPointBatchRecorded',
      );
      expect(await registry.batchCount()).to.equal(12n);
    });

    it('should not store an identical batch twice: no event, the earlier batch number, little gas', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      // Five other batches in the same bucket first, one of them with the same offsets.
      for (let b = 0; b < 5; ++b) {
        const other = batch(
          records(`other${String(b)}`, 2, (i) => BASE + (b === 4 ? i * 30 : b + i)),
        );
        await registry.registerTrustPointBatch(other.records, other.buckets);
      }
      const rs = records('resent', 30, (i) => BASE + i);
      const { records: data, buckets } = batch(rs);
      const sent = await (await registry.registerTrustPointBatch(data, buckets)).wait();

      expect(await registry.registerTrustPointBatch.staticCall(data, buckets)).to.equal(5n);
      const resent = registry.registerTrustPointBatch(data, buckets);
      await expect(resent).not.to.emit(registry, 'TrustPointBatchRecorded');
      const receipt = await (await resent).wait();

      expect(await registry.batchCount()).to.equal(6n);
      expect(Number(receipt?.gasUsed)).to.be.below(Number(sent?.gasUsed) / 2);
      // The same records under other offsets are another batch.
      const shifted = [(buckets[0] ?? 0n) + 1n];
      expect(await registry.registerTrustPointBatch.staticCall(data, shifted)).to.equal(6n);
    });

    it('should take the largest batch (511 records, 24,529 bytes of code) and refuse one more', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('max', MAX_BATCH_RECORDS + 1, (i) => BASE + i);
      const largest = batch(rs.slice(0, MAX_BATCH_RECORDS));

      await registry.registerTrustPointBatch(largest.records, largest.buckets);

      expect((await ethers.provider.getCode(await registry.batchAddress(0))).length).to.equal(
        2 + 2 * 24_529,
      );
      for (const r of [at(rs, 0), at(rs, 255), at(rs, MAX_BATCH_RECORDS - 1)]) {
        expect((await registry.getTrustPoint(r.id, r.timestamp))[0]).to.equal(r.hex);
      }
      const extra = `${largest.records}${ethers.hexlify(ethers.randomBytes(BATCH_RECORD_BYTES)).slice(2)}`;
      // As a call and as a transaction: solidity-coverage missed the transaction's refusal once
      // in 13 runs (a send that fails its gas estimate), which left a branch uncovered.
      await expect(registry.registerTrustPointBatch.staticCall(extra, largest.buckets))
        .to.be.revertedWithCustomError(registry, 'BatchLengthInvalid')
        .withArgs((MAX_BATCH_RECORDS + 1) * BATCH_RECORD_BYTES);
      await expect(registry.registerTrustPointBatch(extra, largest.buckets))
        .to.be.revertedWithCustomError(registry, 'BatchLengthInvalid')
        .withArgs((MAX_BATCH_RECORDS + 1) * BATCH_RECORD_BYTES);
    });

    it('should refuse malformed batches', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('bad', 3, (i) => BASE + i);
      const { records: data, buckets } = batch(rs);
      const body = data.slice(2);
      const record = (i: number) => body.slice(i * 96, i * 96 + 96);

      await expect(registry.registerTrustPointBatch('0x', buckets))
        .to.be.revertedWithCustomError(registry, 'BatchLengthInvalid')
        .withArgs(0);
      await expect(registry.registerTrustPointBatch(`${data}00`, buckets))
        .to.be.revertedWithCustomError(registry, 'BatchLengthInvalid')
        .withArgs(3 * 48 + 1);
      await expect(registry.registerTrustPointBatch(data, [])).to.be.revertedWithCustomError(
        registry,
        'BatchBucketsInvalid',
      );
      await expect(
        registry.registerTrustPointBatch(data, [(2n ** 64n - 1n) << 32n]),
      ).to.be.revertedWithCustomError(registry, 'BatchBucketsInvalid');
      await expect(
        registry.registerTrustPointBatch(`0x${record(1)}${record(0)}${record(2)}`, buckets),
      )
        .to.be.revertedWithCustomError(registry, 'BatchNotSorted')
        .withArgs(1);
      await expect(registry.registerTrustPointBatch(`0x${record(0)}${record(0)}`, buckets))
        .to.be.revertedWithCustomError(registry, 'BatchNotSorted')
        .withArgs(1);
      const zeroHash = `${record(1).slice(0, 32)}${'0'.repeat(64)}`;
      await expect(registry.registerTrustPointBatch(`0x${record(0)}${zeroHash}`, buckets))
        .to.be.revertedWithCustomError(registry, 'RecordHashEmpty')
        .withArgs(1);
    });

    it('should report BatchDeploymentFailed when the data contract cannot be created', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      const rs = records('gas', 400, (i) => BASE + i);
      const { records: data, buckets } = batch(rs);
      // Enough gas for everything but the code deposit: CREATE fails, the registry reverts.
      await expect(
        registry.registerTrustPointBatch(data, buckets, { gasLimit: 1_500_000 }),
      ).to.be.revertedWithCustomError(registry, 'BatchDeploymentFailed');
    });
  });

  describe('registrars', () => {
    it('should revert AccessControlUnauthorizedAccount for anyone else, on every write', async () => {
      const { registry, stranger } = await loadFixture(deployBatchRegistries);
      const asStranger = registry.connect(stranger);
      const key = recordKey(certId(1), BASE);
      const { records: data, buckets } = batch(records('s', 1, () => BASE));
      const role = await registry.REGISTRAR_ROLE();

      for (const send of [
        () => asStranger.registerTrustPoint(key, digest('a').word, Evidence, BASE),
        () => asStranger.registerTrustPoints([]),
        () => asStranger.registerTrustPointBatch(data, buckets),
      ]) {
        await expect(send())
          .to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount')
          .withArgs(stranger.address, role);
      }
    });

    it('should let every granted registrar write, and no revoked one', async () => {
      const { registry, admin, registrar, stranger } = await loadFixture(deployBatchRegistries);
      const role = await registry.REGISTRAR_ROLE();
      const asAdmin = registry.connect(admin);
      await asAdmin.grantRole(role, stranger.address);

      // The first registrar (no longer the cached one) and the new one both write.
      await registry.registerTrustPoint(recordKey(certId(1), BASE), digest('1').word, 0, BASE);
      await registry
        .connect(stranger)
        .registerTrustPoint(recordKey(certId(2), BASE), digest('2').word, 0, BASE);

      await asAdmin.revokeRole(role, stranger.address);
      await asAdmin.revokeRole(role, registrar.address);
      for (const account of [stranger, registrar]) {
        await expect(
          registry
            .connect(account)
            .registerTrustPoint(recordKey(certId(3), BASE), digest('3').word, 0, BASE),
        ).to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount');
      }
      // Revoking an account that is not the cached registrar leaves the cache alone.
      await asAdmin.grantRole(role, registrar.address);
      await asAdmin.revokeRole(await registry.DEFAULT_ADMIN_ROLE(), stranger.address);
      await registry.registerTrustPoint(recordKey(certId(3), BASE), digest('3').word, 0, BASE);
    });

    it('should refuse a registrar that renounced the role, and still take one granted earlier', async () => {
      const { registry, admin, registrar, stranger } = await loadFixture(deployBatchRegistries);
      const role = await registry.REGISTRAR_ROLE();
      // `stranger` is granted first, `registrar` last: the cached one renounces.
      await registry.connect(admin).revokeRole(role, registrar.address);
      await registry.connect(admin).grantRole(role, stranger.address);
      await registry.connect(admin).grantRole(role, registrar.address);

      await registry.renounceRole(role, registrar.address);

      const key = recordKey(certId('renounced'), BASE);
      await expect(registry.registerTrustPoint(key, digest('r').word, Evidence, BASE))
        .to.be.revertedWithCustomError(registry, 'AccessControlUnauthorizedAccount')
        .withArgs(registrar.address, role);
      await expect(
        registry.connect(stranger).registerTrustPoint(key, digest('r').word, Evidence, BASE),
      )
        .to.emit(registry, 'TrustPointRecorded')
        .withArgs(key, digest('r').word, Evidence);
    });
  });

  describe('keys and buckets', () => {
    it('should derive keys and buckets as the encoder does', async () => {
      const { registry } = await loadFixture(deployBatchRegistries);
      expect(await registry.trustPointKey(certId(1), BASE)).to.equal(recordKey(certId(1), BASE));
      expect(await registry.bucketOf(BASE + 1025)).to.deep.equal([BigInt(BASE / 1024 + 1), 1n]);
    });
  });
});
