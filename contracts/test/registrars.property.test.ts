// Property: only a registrar writes, on both generations of registries. Any other account (the
// admin, a never-granted account, any address, a registrar since revoked or renounced, whether or
// not the batch registries cached it) calling any write function is refused with exactly
// AccessControl's error, and nothing the registry shows changes; a registrar sending the same call
// then succeeds. The batch registries' successor and seal are the admin's alone, like its roles.
import { loadFixture } from '@nomicfoundation/hardhat-network-helpers';
import { expect } from 'chai';
import type { BaseContract, Signer } from 'ethers';
import { ethers, network } from 'hardhat';
import fc from 'fast-check';
import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/registry-abi';
import { deployReleaseRegistries, digest, recordKey } from './fixtures';
import { ethCall, serveHardhatNetwork, type JsonRpcEndpoint } from './json-rpc-server';

const REGISTRAR_ROLE = ethers.id('REGISTRAR_ROLE');
const ADMIN_ROLE = ethers.ZeroHash;
const BASE_MS = 1_767_225_600_000;
const BASE_S = 1_767_225_600;

type Registry = 'slotRegistry' | 'slotRepository' | 'batchRegistry' | 'batchRepository';

interface Rec {
  id: string;
  key: string;
  hash: string;
  type: number;
  timestamp: number;
}

/** A write call: its function and arguments, the role it needs, the records it would write. */
interface Write {
  fn: string;
  args: unknown[];
  role: string;
  records: Rec[];
  /** A call that fails whoever sends it, with this error instead of the role check's. */
  refusedWith?: string;
}

const isBatchGeneration = (registry: Registry) => registry.startsWith('batch');
const isTrustPoints = (registry: Registry) => registry.endsWith('Registry');

function recordsOf(registry: Registry, drawn: { id: number; offset: number; type: number }[]) {
  return drawn.map(({ id, offset, type }): Rec => {
    const name = isTrustPoints(registry)
      ? `did:trustpoint:certid:${String(id)}`
      : digest(`asset ${String(id)}`).hex;
    const timestamp = (isTrustPoints(registry) ? BASE_MS : BASE_S) + offset;
    return {
      id: name,
      key: recordKey(name, timestamp),
      hash: digest(`${name} ${String(timestamp)}`).word,
      type: isTrustPoints(registry) ? type : 0,
      timestamp,
    };
  });
}

/**
 * Every write function of a registry, with arguments holding `records` (valid for a registrar);
 * the role functions grant the role to `writer`, revoke it from `registrar`, and renounce it for
 * `registrar`, who is not `writer`; a batch registry's successor would be `successor`.
 */
function writesOf(
  registry: Registry,
  records: Rec[],
  writer: string,
  registrar: string,
  successor: string,
): Write[] {
  const [first] = records;
  if (!first) throw new Error('at least one record');
  const batch = isBatchGeneration(registry);
  const trustPoints = isTrustPoints(registry);
  const withTime = (r: Rec) => (batch ? [r.timestamp] : []);
  const one = trustPoints
    ? { fn: 'registerTrustPoint', args: [first.key, first.hash, first.type, ...withTime(first)] }
    : { fn: 'registerEvidence', args: [first.key, first.hash, ...withTime(first)] };
  const many = trustPoints
    ? {
        fn: 'registerTrustPoints',
        args: [
          records.map((r) => ({
            key: r.key,
            hash: r.hash,
            trustPointType: r.type,
            ...(batch ? { timestamp: r.timestamp } : {}),
          })),
        ],
      }
    : {
        fn: 'registerEvidences',
        args: [
          records.map((r) => ({
            key: r.key,
            hash: r.hash,
            ...(batch ? { timestamp: r.timestamp } : {}),
          })),
        ],
      };
  const writes: Write[] = [
    { ...one, role: REGISTRAR_ROLE, records: [first] },
    { ...many, role: REGISTRAR_ROLE, records },
    { fn: 'grantRole', args: [REGISTRAR_ROLE, writer], role: ADMIN_ROLE, records: [] },
    { fn: 'revokeRole', args: [REGISTRAR_ROLE, registrar], role: ADMIN_ROLE, records: [] },
    {
      fn: 'renounceRole',
      args: [REGISTRAR_ROLE, registrar],
      role: REGISTRAR_ROLE,
      records: [],
      refusedWith: 'AccessControlBadConfirmation',
    },
  ];
  if (batch) {
    const { records: data, buckets } = encodeRecordBatch(
      records,
      trustPoints ? TRUSTPOINT_BUCKET_BITS : EVIDENCE_BUCKET_BITS,
    );
    writes.push(
      {
        fn: trustPoints ? 'registerTrustPointBatch' : 'registerEvidenceBatch',
        args: [data, buckets],
        role: REGISTRAR_ROLE,
        records,
      },
      { fn: 'announceNextGeneration', args: [successor], role: ADMIN_ROLE, records: [] },
      { fn: 'sealForever', args: [], role: ADMIN_ROLE, records: [] },
    );
  }
  return writes;
}

/** Everything a registry shows about the records, roles and batches a write could touch. */
async function observe(
  registry: Registry,
  contract: BaseContract,
  records: Rec[],
  accounts: string[],
): Promise<unknown[]> {
  const call = (fn: string, ...args: unknown[]) => contract.getFunction(fn).staticCall(...args);
  const address = await contract.getAddress();
  const seen: unknown[] = [await ethers.provider.getTransactionCount(address)];
  for (const account of accounts) {
    seen.push(await call('hasRole', REGISTRAR_ROLE, account));
    seen.push(await call('hasRole', ADMIN_ROLE, account));
  }
  for (const r of records) {
    if (!isBatchGeneration(registry)) {
      seen.push(await call(isTrustPoints(registry) ? 'trustPointOf' : 'evidenceOf', r.key));
      continue;
    }
    const [bucket] = (await call('bucketOf', r.timestamp)) as [bigint, bigint];
    seen.push(
      await call(isTrustPoints(registry) ? 'findTrustPoint' : 'findEvidence', r.key, r.timestamp),
      await call('slotBucketOpen', bucket),
      await call('bucketBatches', bucket),
    );
  }
  if (isBatchGeneration(registry)) {
    seen.push(
      await call('batchCount'),
      await call('nextGeneration'),
      await call('sealedBlockNumber'),
    );
  }
  return JSON.parse(
    JSON.stringify(seen, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  ) as unknown[];
}

async function signerFor(address: string): Promise<Signer> {
  const signers = await ethers.getSigners();
  const known = signers.find((s) => s.address === address);
  if (known) return known;
  await network.provider.send('hardhat_setBalance', [address, '0xde0b6b3a7640000']);
  return ethers.getImpersonatedSigner(address);
}

const recordDraws = fc.array(
  fc.record({
    id: fc.integer({ min: 0, max: 1000 }),
    offset: fc.integer({ min: 100_000, max: 200_000 }),
    type: fc.integer({ min: 0, max: 2 }),
  }),
  { minLength: 1, maxLength: 6 },
);

describe('Registrars: properties', () => {
  let node: JsonRpcEndpoint;

  before(async () => {
    node = await serveHardhatNetwork();
  });

  after(async () => {
    await node.close();
  });

  it('should refuse any write by anyone but a registrar with AccessControl errors and change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Registry>(
          'slotRegistry',
          'slotRepository',
          'batchRegistry',
          'batchRepository',
        ),
        // Accounts 2-5 granted the role in this order, then some registrars revoked or renounced.
        fc.uniqueArray(fc.integer({ min: 2, max: 5 }), { maxLength: 3 }),
        fc.array(fc.constantFrom('kept', 'revoked', 'renounced'), { minLength: 4, maxLength: 4 }),
        fc.oneof(
          fc.constant({ kind: 'admin' as const }),
          fc.record({ kind: fc.constant('removed' as const), pick: fc.nat() }),
          fc.record({
            kind: fc.constant('never granted' as const),
            index: fc.integer({ min: 6, max: 8 }),
          }),
          fc.record({
            kind: fc.constant('any address' as const),
            bytes: fc.uint8Array({ minLength: 20, maxLength: 20 }),
          }),
        ),
        fc.nat(),
        recordDraws,
        async (registry, granted, fates, writerDraw, writeIndex, drawn) => {
          const fixture = await loadFixture(deployReleaseRegistries);
          const signers = await ethers.getSigners();
          const admin = fixture.admin;
          const contract = fixture[registry] as BaseContract;
          const asAdmin = contract.connect(admin);
          const address = (i: number) => signers[i]?.address ?? '';

          // A record written before, which must stay.
          const [seed] = recordsOf(registry, [{ id: 0, offset: 0, type: 1 }]);
          if (!seed) throw new Error('no seed record');
          // Any other contract: a successor must have code.
          const successor = await fixture.slotRegistry.getAddress();
          const seedWrite = writesOf(registry, [seed], address(1), address(1), successor)[0];
          if (!seedWrite) throw new Error('no write');
          await (await contract.getFunction(seedWrite.fn).send(...seedWrite.args)).wait();

          // The role's history: grants, then each registrar kept, revoked by the admin or renounced.
          for (const i of granted)
            await asAdmin.getFunction('grantRole')(REGISTRAR_ROLE, address(i));
          const registrars = [1, ...granted];
          const removed: number[] = [];
          for (const [n, i] of registrars.entries()) {
            const fate = fates[n] ?? 'kept';
            if (fate === 'kept') continue;
            removed.push(i);
            if (fate === 'revoked')
              await asAdmin.getFunction('revokeRole')(REGISTRAR_ROLE, address(i));
            else {
              const self = contract.connect(signers[i] ?? admin);
              await self.getFunction('renounceRole')(REGISTRAR_ROLE, address(i));
            }
          }
          const kept = registrars.filter((i) => !removed.includes(i));

          let writer: string;
          switch (writerDraw.kind) {
            case 'admin':
              writer = admin.address;
              break;
            case 'removed':
              fc.pre(removed.length > 0);
              writer = address(removed[writerDraw.pick % removed.length] ?? 0);
              break;
            case 'never granted':
              writer = address(writerDraw.index);
              break;
            case 'any address':
              writer = ethers.getAddress(ethers.hexlify(writerDraw.bytes));
              fc.pre(!signers.some((s) => s.address === writer));
              break;
          }
          const records = recordsOf(registry, drawn).filter(
            (r, i, all) => all.findIndex((o) => o.key === r.key) === i,
          );
          // A registrar still holding the role when there is one, never the writer.
          const registrar = address(kept[0] ?? (writer === address(1) ? 2 : 1));
          const writes = writesOf(registry, records, writer, registrar, successor);
          const write = writes[writeIndex % writes.length];
          if (!write) throw new Error('no write');
          // The admin may manage roles: only the registration functions are refused to it.
          fc.pre(!(writer === admin.address && write.role === ADMIN_ROLE));

          const accounts = [...signers.slice(0, 9).map((s) => s.address), writer];
          const before = await observe(registry, contract, [seed, ...records], accounts);

          // Refused with exactly the role check's error, as a raw eth_call and as a transaction.
          const iface = contract.interface;
          const expected = write.refusedWith
            ? iface.encodeErrorResult(write.refusedWith, [])
            : iface.encodeErrorResult('AccessControlUnauthorizedAccount', [writer, write.role]);
          const to = await contract.getAddress();
          const data = iface.encodeFunctionData(write.fn, write.args);
          expect(await ethCall(node.url, { to, data, from: writer })).to.deep.equal({
            reverted: expected,
          });
          const attempt = contract.connect(await signerFor(writer)).getFunction(write.fn)(
            ...write.args,
          );
          if (write.refusedWith)
            await expect(attempt).to.be.revertedWithCustomError(contract, write.refusedWith);
          else {
            await expect(attempt)
              .to.be.revertedWithCustomError(contract, 'AccessControlUnauthorizedAccount')
              .withArgs(writer, write.role);
          }

          expect(await observe(registry, contract, [seed, ...records], accounts)).to.deep.equal(
            before,
          );

          // The same call from an account allowed to make it does change the registry.
          if (write.refusedWith || (write.fn === 'revokeRole' && kept.length === 0)) return;
          let allowed = admin;
          if (write.role === REGISTRAR_ROLE) {
            const sender = signers[kept[0] ?? 9];
            if (!sender) throw new Error('no registrar');
            if (kept.length === 0)
              await asAdmin.getFunction('grantRole')(REGISTRAR_ROLE, sender.address);
            allowed = sender;
          }
          await (
            await contract
              .connect(allowed)
              .getFunction(write.fn)
              .send(...write.args)
          ).wait();
          expect(await observe(registry, contract, [seed, ...records], accounts)).not.to.deep.equal(
            before,
          );
        },
      ),
      { numRuns: 80 },
    );
  });
});
