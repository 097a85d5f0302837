import type { LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorEngine } from '../src/anchoring/anchor-engine.js';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { NetworkRegistry } from '../src/networks/network-registry.js';
import { trustPointRequests } from './support/records.js';
import { registerDirectly, startTestChain } from './support/test-chain.js';

describe('a registrar key another deployment signs with too', () => {
  let chain: LocalChain;
  let network: NetworkConfig;
  let db: TestDatabase;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain());
    db = await openTestDatabase('pglite');
  }, 60_000);

  afterAll(async () => {
    await db.close();
    await chain.stop();
  });

  it('when the chain holds transactions of the key this deployment never signed, then it says so once at error level, with what to do', async () => {
    const errors: { object: Record<string, unknown>; message: string }[] = [];
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (object: Record<string, unknown>, message: string) => errors.push({ object, message }),
    };
    const engine = new AnchorEngine(db.knex, new NetworkRegistry([network]), {
      logger,
      timing: { balanceCheckMs: 50 },
    });
    const [first, foreign] = trustPointRequests(2);
    if (first === undefined || foreign === undefined) throw new Error('two requests');
    const id = await db.knex.transaction((trx) => engine.enqueue(trx, first));
    engine.start();
    await engine.waitForAnchor(id);
    const beforeForeign = errors.length;

    // Another deployment, with its own database, writes with the same key.
    await registerDirectly(network, foreign, `0x${foreign.hash}`);
    const deadline = Date.now() + 10_000;
    while (errors.length === beforeForeign && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await engine.stop();

    expect(beforeForeign).toBe(0);
    const shared = errors.filter(({ message }) => message.startsWith('registrar key shared'));
    expect(shared).toHaveLength(1);
    expect(shared[0]?.message).toContain('registrar key of its own');
    expect(shared[0]?.object).toMatchObject({ networkId: network.networkId });
  }, 60_000);
});
