import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordDeployment } from '@trustpoint/contracts';
import { describe, expect, it } from 'vitest';
import { loadNetworks } from '../src/networks/load-networks.js';
import { networkSummaries } from '../src/networks/network-summary.js';

const EXAMPLES = join(__dirname, '..', 'examples', 'networks');

/** What each example must resolve to, by file. */
const EXPECTED = {
  'sepolia.json': {
    keyEnv: 'SEPOLIA_REGISTRAR_KEY',
    network: {
      networkId: '11155111',
      chainId: 11155111,
      confirmations: 2,
      explorerUrl: 'https://sepolia.etherscan.io',
      acknowledgement: 'async',
      anchorTimeoutMs: 108_000,
    },
  },
  'polygon-amoy.json': {
    keyEnv: 'AMOY_REGISTRAR_KEY',
    network: {
      networkId: '80002',
      chainId: 80002,
      confirmations: 5,
      explorerUrl: 'https://amoy.polygonscan.com',
      acknowledgement: 'sync',
      anchorTimeoutMs: 36_000,
    },
  },
  'besu-qbft.json': {
    keyEnv: 'BESU_REGISTRAR_KEY',
    network: {
      networkId: '1337',
      chainId: 1337,
      confirmations: 1,
      acknowledgement: 'sync',
      anchorTimeoutMs: 30_000,
    },
  },
} as const;

/** A deployments file as `trustpoint-deploy` writes it, for the examples' chain ids. */
async function deploymentsFor(chainIds: number[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'trustpoint-examples-')), 'deployments.json');
  for (const [index, chainId] of chainIds.entries()) {
    const address = (digit: number) => `0x${String(digit).repeat(39)}${String(index)}`;
    await recordDeployment(file, {
      chainId: String(chainId),
      trustPointRegistry: address(1),
      evidenceRepository: address(2),
      admin: address(3),
      registrar: address(4),
      blockNumber: 1,
      deployedAt: new Date(0).toISOString(),
    });
  }
  return file;
}

describe('Example networks files', () => {
  it('when the examples folder is listed, then it holds exactly the documented examples', async () => {
    const files = (await readdir(EXAMPLES)).filter((name) => name.endsWith('.json'));

    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))(
    'when %s is loaded with its key variable set, then it parses with the networks-file loader and resolves its addresses from the deployments file',
    async (file, expected) => {
      const key = `0x${'42'.repeat(32)}`;
      const deploymentsFile = await deploymentsFor([expected.network.chainId]);

      const networks = await loadNetworks({
        networksFile: join(EXAMPLES, file),
        deploymentsFile,
        env: { [expected.keyEnv]: key },
      });

      expect(networks).toHaveLength(1);
      expect(networks[0]).toMatchObject({
        ...expected.network,
        signerKey: key,
        trustPointRegistry: `0x${'1'.repeat(39)}0`,
        evidenceRepository: `0x${'2'.repeat(39)}0`,
      });
      const summary = JSON.stringify(networkSummaries(networks));
      expect(summary).not.toContain(key.slice(2));
      expect(summary).not.toContain(networks[0]?.rpcUrl);
    },
  );

  it.each(Object.entries(EXPECTED))(
    'when %s is loaded without its key variable, then start-up stops naming the variable',
    async (file, expected) => {
      const deploymentsFile = await deploymentsFor([expected.network.chainId]);

      await expect(
        loadNetworks({ networksFile: join(EXAMPLES, file), deploymentsFile, env: {} }),
      ).rejects.toThrow(expected.keyEnv);
    },
  );
});
