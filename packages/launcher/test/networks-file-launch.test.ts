import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deployTrustpoint,
  freePort,
  HARDHAT_DEV_KEY,
  startHardhatNode,
  type HardhatNode,
  type TrustpointDeployment,
} from '@trustpoint/contracts';
import { findPlan, findUser } from '@trustpoint/db';
import { JsonRpcProvider, Wallet } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type RunningTrustpoint } from '../src/launcher.js';
import { LOCAL_USER_ID } from '../src/local-identity.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

/** A chain node the operator runs on its own, as a real network would be: not the embedded one. */
async function startOperatorChain(): Promise<{
  chain: HardhatNode;
  deployment: TrustpointDeployment;
}> {
  const chain = await startHardhatNode({ port: 0 });
  const provider = new JsonRpcProvider(chain.url, undefined, { staticNetwork: true });
  const deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
  provider.destroy();
  return { chain, deployment };
}

async function writeNetworksFile(dir: string, networks: unknown[]): Promise<string> {
  const path = join(dir, 'networks.json');
  await writeFile(path, JSON.stringify({ networks }));
  return path;
}

async function certify(running: RunningTrustpoint, networkId: string) {
  const response = await fetch(
    `${running.certApiUrl}/certificates?type=content&networkId=${networkId}`,
    {
      method: 'POST',
      headers: { Authorization: `Bearer ${running.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Hello', description: '', content: { n: Math.random() } }),
    },
  );
  return {
    status: response.status,
    body: (await response.json()) as {
      data: { metadata: { transactionHash: string }[] };
      errors?: unknown[];
    },
  };
}

async function isAnswering(url: string): Promise<boolean> {
  return fetch(url, { method: 'POST', body: '{}' }).then(
    () => true,
    () => false,
  );
}

async function localPlan(running: RunningTrustpoint): Promise<string[] | undefined> {
  const user = await findUser(running.database.knex, LOCAL_USER_ID);
  return user && (await findPlan(running.database.knex, user.planId))?.networkIds;
}

describe('Launcher with a networks file', () => {
  let operator: { chain: HardhatNode; deployment: TrustpointDeployment };
  let operatorNetwork: Record<string, unknown>;

  beforeAll(async () => {
    operator = await startOperatorChain();
    // Chain 31337 too (a Hardhat node), but at an address of its own: the operator's node.
    operatorNetwork = {
      networkId: '1337',
      name: 'Operator chain',
      rpcUrl: operator.chain.url,
      chainId: 31337,
      trustPointRegistry: operator.deployment.trustPointRegistry,
      evidenceRepository: operator.deployment.evidenceRepository,
      explorerUrl: 'https://explorer.example.org',
    };
  }, 60_000);

  afterAll(async () => {
    await operator.chain.stop();
  });

  it('when the file does not name the embedded chain, then it is not started, the local plan is the networks marked localUser, and certificates anchor there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-file-'));
    // A first start without the file: the embedded chain and a plan that names it.
    const before = await launch('all', await testLaunchConfig(dataDir), silent);
    const planBefore = await localPlan(before);
    await before.stop();
    const config = await testLaunchConfig(dataDir, {
      networksFile: await writeNetworksFile(dataDir, [{ ...operatorNetwork, localUser: true }]),
    });

    const running = await launch('all', config, silent);
    try {
      expect(planBefore).toEqual(['31337']);
      expect(running.embeddedChain).toBeUndefined();
      expect(await isAnswering(`http://${config.chainHost}:${String(config.chainPort)}`)).toBe(
        false,
      );
      expect(running.networks.list().map((network) => network.networkId)).toEqual(['1337']);
      expect(await localPlan(running)).toEqual(['1337']);

      const anchored = await certify(running, '1337');
      const embedded = await certify(running, '31337');

      expect(anchored.status).toBe(201);
      const provider = new JsonRpcProvider(operator.chain.url, undefined, { staticNetwork: true });
      const receipt = await provider.getTransactionReceipt(
        anchored.body.data.metadata[0]?.transactionHash ?? '',
      );
      provider.destroy();
      expect(receipt?.status).toBe(1);
      expect(embedded.status).toBe(400);
      const networks = (await (await fetch(`${running.certApiUrl}/networks`)).json()) as {
        data: { networks: { networkId: number; explorerUrl: string | null }[] };
      };
      expect(networks.data.networks).toEqual([
        expect.objectContaining({ networkId: 1337, explorerUrl: 'https://explorer.example.org' }),
      ]);
    } finally {
      await running.stop();
    }
  }, 240_000);

  it('when the file names the embedded chain (chain 31337 at CHAIN_HOST:CHAIN_PORT), then it is started and deployed, and the local user may use only the network marked for it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-file-'));
    const chainPort = await freePort();
    const embeddedNetwork = {
      networkId: '31337',
      rpcUrl: `http://localhost:${String(chainPort)}`,
      chainId: 31337,
      localUser: true,
    };
    const config = await testLaunchConfig(dataDir, {
      chainPort,
      networksFile: await writeNetworksFile(dataDir, [operatorNetwork, embeddedNetwork]),
    });

    const running = await launch('all', config, silent);
    try {
      expect(running.embeddedChain?.url).toBe(`http://127.0.0.1:${String(chainPort)}`);
      expect(await localPlan(running)).toEqual(['31337']);
      const onEmbedded = await certify(running, '31337');
      const onOperator = await certify(running, '1337');
      expect([onEmbedded.status, onOperator.status]).toEqual([201, 403]);
      expect(running.networks.get('31337')).toMatchObject({
        trustPointRegistry: running.embeddedChain?.deployment.trustPointRegistry,
      });
    } finally {
      await running.stop();
    }
  }, 240_000);
});
