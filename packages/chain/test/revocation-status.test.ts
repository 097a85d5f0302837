import {
  chainWriterProvider,
  TrustPointStatusRegistry__factory,
  type LocalChain,
} from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import { id, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine, AnchorFailedError } from '../src/anchoring/anchor-engine.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { startTestChain } from './support/test-chain.js';

const HASH = 'c0'.repeat(32);

/** What the status registry answers for a certID: (revoked, timestamp, recordedAt). */
async function revocationOf(network: NetworkConfig, certId: string) {
  const provider = chainWriterProvider(network.rpcUrl, network.rpcHeaders ?? {});
  try {
    const registry = TrustPointStatusRegistry__factory.connect(
      network.statusRegistry ?? '',
      provider,
    );
    const [revoked, timestamp, recordedAt] = await registry.revocationOf(certId);
    const block = await provider.getBlock('latest');
    return { revoked, timestamp: Number(timestamp), recordedAt: Number(recordedAt), block };
  } finally {
    provider.destroy();
  }
}

describe.each(testBackends())('Revocation statuses on %s', (backend) => {
  let chain: LocalChain;
  let network: NetworkConfig;
  let db: TestDatabase;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain());
    db = await openTestDatabase(backend);
  }, 60_000);

  afterAll(async () => {
    await db.close();
    await chain.stop();
  });

  it('when a revocation status is queued, then the status registry answers it from the certID alone, dated by the chain', async () => {
    expect(network.statusRegistry).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const certId = `did:trustpoint:certid:${crypto.randomUUID()}`;
    const revocation = { certId, timestamp: 1_767_225_600_123, hash: HASH };

    const ids = await db.knex.transaction((trx) =>
      engine.enqueueRevocationStatus(trx, revocation, [network.networkId]),
    );
    engine.start();
    const [receipt] = await Promise.all(ids.map((recordId) => engine.waitForAnchor(recordId)));
    await engine.stop();

    expect(ids).toHaveLength(1);
    expect(receipt?.smartContract).toBe(network.statusRegistry);
    const status = await revocationOf(network, certId);
    expect(status.revoked).toBe(true);
    expect(status.timestamp).toBe(revocation.timestamp);
    // The block's time, not the claimed one: a revocation cannot be back-dated.
    expect(status.recordedAt).toBeGreaterThan(revocation.timestamp / 1000);
    expect(status.recordedAt).toBeLessThanOrEqual(status.block?.timestamp ?? 0);
    const rows = await db
      .knex('anchor_records')
      .where({ kind: 'status', record_key: id(certId) })
      .select<{ status: string; record_timestamp: number | string }[]>(
        'status',
        'record_timestamp',
      );
    expect(rows.map((row) => [row.status, Number(row.record_timestamp)])).toEqual([
      ['anchored', revocation.timestamp],
    ]);
  }, 60_000);

  it('when the same status is queued again, then it is the same record, queued once', async () => {
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));
    const certId = `did:trustpoint:certid:${crypto.randomUUID()}`;
    const revocation = { certId, timestamp: 1_767_225_600_500, hash: HASH };

    const first = await db.knex.transaction((trx) =>
      engine.enqueueRevocationStatus(trx, revocation, [network.networkId]),
    );
    const again = await db.knex.transaction((trx) =>
      engine.enqueueRevocationStatus(trx, revocation, [network.networkId, network.networkId]),
    );

    expect(again).toEqual(first);
    const count = await db
      .knex('anchor_records')
      .where({ kind: 'status', record_key: id(certId) })
      .count<{ count: number | string }[]>('* as count');
    expect(Number(count[0]?.count)).toBe(1);
    engine.start();
    await engine.waitForAnchor(first[0] ?? 0);
    await engine.stop();
  }, 60_000);

  it('when the registry already holds another revocation time for the certID, then that status fails and the others of its batch are written', async () => {
    const taken = `did:trustpoint:certid:${crypto.randomUUID()}`;
    const other = `did:trustpoint:certid:${crypto.randomUUID()}`;
    // Another writer of the same registry (a second deployment) revoked it first, at another time.
    const provider = chainWriterProvider(network.rpcUrl, network.rpcHeaders ?? {});
    try {
      const registry = TrustPointStatusRegistry__factory.connect(
        network.statusRegistry ?? '',
        new Wallet(network.signerKey, provider),
      );
      await (await registry.registerRevocation(id(taken), 1_000)).wait();
    } finally {
      provider.destroy();
    }
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]));

    const ids = await db.knex.transaction(async (trx) => [
      ...(await engine.enqueueRevocationStatus(
        trx,
        { certId: taken, timestamp: 2_000, hash: HASH },
        [network.networkId],
      )),
      ...(await engine.enqueueRevocationStatus(
        trx,
        { certId: other, timestamp: 3_000, hash: HASH },
        [network.networkId],
      )),
    ]);
    engine.start();
    const outcomes = await Promise.allSettled(
      ids.map((recordId) => engine.waitForAnchor(recordId)),
    );
    await engine.stop();

    expect(outcomes[0]?.status).toBe('rejected');
    const reason = (outcomes[0] as PromiseRejectedResult).reason as unknown;
    expect(reason).toBeInstanceOf(AnchorFailedError);
    expect(String(reason)).toContain('RevocationConflict');
    expect(outcomes[1]?.status).toBe('fulfilled');
    // Write-once: the first revocation stands.
    expect((await revocationOf(network, taken)).timestamp).toBe(1_000);
    expect((await revocationOf(network, other)).timestamp).toBe(3_000);
  }, 60_000);

  it('when a network has no status registry, then no status is queued for it', async () => {
    const { statusRegistry: _, ...withoutStatus } = network;
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([withoutStatus]), {
      anchoring: false,
    });

    const ids = await db.knex.transaction((trx) =>
      engine.enqueueRevocationStatus(
        trx,
        { certId: 'did:trustpoint:certid:none', timestamp: 1, hash: HASH },
        [network.networkId],
      ),
    );

    expect(ids).toEqual([]);
  });
});
