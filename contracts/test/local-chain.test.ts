// The embedded chain keeps its history across restarts and crashes.
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { deployTrustpoint } from '../src/deploy';
import {
  chainWriteHeaders,
  HARDHAT_DEV_KEY,
  readChainWriteKey,
  readDeployments,
} from '@trustpoint/registry-abi';
import { chainWriterProvider } from '../src/chain-writer';
import { freePort } from '../src/free-port';
import { isJsonRpcReady } from '../src/hardhat-node';
import { startLocalChain } from '../src/local-chain';
import { EvidenceBatchRepository__factory } from '../typechain-types';
import { digest, recordKey } from './fixtures';

const ASSET = digest('asset').hex;

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs `work` on a chain of its own in a fresh data directory, with a provider that writes
 * through its relay; both are stopped afterwards.
 */
async function onFreshChain(
  work: (provider: ReturnType<typeof chainWriterProvider>) => Promise<void>,
  options: { intervalMiningMs?: number } = {},
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-'));
  const chain = await startLocalChain({ dataDir, port: await freePort(), ...options });
  const provider = chainWriterProvider(chain.url, chain.writeHeaders);
  try {
    await work(provider);
  } finally {
    provider.destroy();
    await chain.stop();
  }
}

describe('Local chain', function () {
  this.timeout(120_000);

  it('should keep deployed registries and records across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-'));
    const port = await freePort();
    const first = await startLocalChain({ dataDir, port });
    let deployment;
    try {
      const provider = chainWriterProvider(first.url, first.writeHeaders);
      deployment = await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
      // NonceManager: the provider may answer the nonce from its short-lived request cache.
      const repository = EvidenceBatchRepository__factory.connect(
        deployment.evidenceRepository,
        new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider)),
      );
      await (await repository.registerEvidence(recordKey(ASSET, 1), digest('e1').word, 1)).wait();
      provider.destroy();
    } finally {
      await first.stop();
    }

    const second = await startLocalChain({ dataDir, port });
    try {
      const reader = EvidenceBatchRepository__factory.connect(
        deployment.evidenceRepository,
        new JsonRpcProvider(second.url, undefined, { staticNetwork: true, cacheTimeout: -1 }),
      );

      // Both registries, the status registry and the evidence.
      expect(second.replayed).to.equal(4);
      expect(await reader.getEvidence(ASSET, 1)).to.equal(digest('e1').hex);
    } finally {
      await second.stop();
    }
  });

  it('should keep its genesis block and the times of its blocks across a restart, and date new blocks by the clock', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-'));
    const port = await freePort();
    const blocksOf = async (url: string) => {
      const provider = new JsonRpcProvider(url, undefined, {
        staticNetwork: true,
        cacheTimeout: -1,
      });
      const latest = await provider.getBlockNumber();
      const blocks = await Promise.all(
        Array.from({ length: latest + 1 }, (_, number) => provider.getBlock(number)),
      );
      provider.destroy();
      return blocks.map((block) => ({ hash: block?.hash, timestamp: block?.timestamp }));
    };
    const first = await startLocalChain({ dataDir, port });
    let before;
    try {
      const provider = chainWriterProvider(first.url, first.writeHeaders);
      await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
      provider.destroy();
      before = await blocksOf(first.url);
    } finally {
      await first.stop();
    }
    // Restarted seconds later: the replayed blocks must not take the new start's time.
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    const second = await startLocalChain({ dataDir, port });
    try {
      const after = await blocksOf(second.url);
      const provider = chainWriterProvider(second.url, second.writeHeaders);
      const wallet = new Wallet(HARDHAT_DEV_KEY, provider);
      const sentAt = Math.floor(Date.now() / 1000);
      const receipt = await (
        await wallet.sendTransaction({ to: wallet.address, value: 0n })
      ).wait();
      const block = await provider.getBlock(receipt?.blockNumber ?? 0);
      provider.destroy();

      expect(after[0]?.hash).to.equal(before[0]?.hash);
      expect(after.map((b) => b.timestamp)).to.deep.equal(before.map((b) => b.timestamp));
      // Same transactions, same times, same parent: the very same blocks.
      expect(after.map((b) => b.hash)).to.deep.equal(before.map((b) => b.hash));
      expect(block?.timestamp).to.be.within(sentAt - 1, sentAt + 5);
    } finally {
      await second.stop();
    }
  });

  it('should date blocks by the clock when transactions come faster than one a second', async () => {
    await onFreshChain(async (provider) => {
      const wallet = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
      const to = await wallet.getAddress();
      // A block each: a second after the one before, they would run 20 s ahead of the clock.
      for (let sent = 0; sent < 20; sent += 1) {
        await (await wallet.sendTransaction({ to, value: 0n })).wait();
      }
      const latest = await provider.getBlock('latest');

      expect(latest?.number).to.be.at.least(20);
      expect(latest?.timestamp).to.be.at.most(Math.floor(Date.now() / 1000) + 1);
    });
  });

  it('should date the first block after a start left idle by the clock, not by the start', async () => {
    await onFreshChain(async (provider) => {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const wallet = new Wallet(HARDHAT_DEV_KEY, provider);
      const sentAt = Math.floor(Date.now() / 1000);
      const receipt = await (
        await wallet.sendTransaction({ to: wallet.address, value: 0n })
      ).wait();
      const block = await provider.getBlock(receipt?.blockNumber ?? 0);

      expect(block?.timestamp).to.be.within(sentAt, sentAt + 1);
    });
  });

  it('should mine a block every interval, not one per transaction, when asked', async () => {
    await onFreshChain(
      async (provider) => {
        const automine: unknown = await provider.send('hardhat_getAutomine', []);
        const start = await provider.getBlockNumber();
        // Empty blocks keep coming, as on a real network.
        await waitUntil(async () => (await provider.getBlockNumber()) >= start + 3, 10_000);
        const wallet = new Wallet(HARDHAT_DEV_KEY, provider);
        const sent = await wallet.sendTransaction({ to: wallet.address, value: 0n });
        const receipt = await sent.wait(1, 10_000);

        expect(automine).to.equal(false);
        expect(receipt?.status).to.equal(1);
      },
      { intervalMiningMs: 300 },
    );
  });

  it('should keep every acknowledged transaction when its process is killed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${String(port)}`;
    const launch = () =>
      spawn(
        process.execPath,
        [
          '-r',
          'ts-node/register/transpile-only',
          join(__dirname, '..', 'scripts', 'local-chain.ts'),
        ],
        {
          cwd: join(__dirname, '..'),
          env: { ...process.env, CHAIN_PORT: String(port), TRUSTPOINT_DATA_DIR: dataDir },
          detached: true,
          stdio: 'ignore',
        },
      );
    const first = launch();
    await waitUntil(
      async () => (await readDeployments(join(dataDir, 'deployments.json')))['31337'] !== undefined,
      60_000,
    );
    const deployment = (await readDeployments(join(dataDir, 'deployments.json')))['31337'];
    if (!deployment) throw new Error('not deployed');
    const key = await readChainWriteKey(join(dataDir, 'chain'));
    if (key === undefined) throw new Error('no write key');
    const provider = chainWriterProvider(url, chainWriteHeaders(key));
    const repository = EvidenceBatchRepository__factory.connect(
      deployment.evidenceRepository,
      new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider)),
    );
    for (let t = 1; t <= 5; t++) {
      await (
        await repository.registerEvidence(recordKey(ASSET, t), digest(`e${String(t)}`).word, t)
      ).wait();
    }
    provider.destroy();

    // SIGKILL the whole process group: the relay and its hardhat node die without cleanup.
    if (first.pid === undefined) throw new Error('no pid');
    process.kill(-first.pid, 'SIGKILL');
    await waitUntil(async () => !(await isJsonRpcReady(url)), 10_000);
    const second = launch();
    try {
      await waitUntil(() => isJsonRpcReady(url), 60_000);
      const reader = EvidenceBatchRepository__factory.connect(
        deployment.evidenceRepository,
        new JsonRpcProvider(url, undefined, { staticNetwork: true, cacheTimeout: -1 }),
      );
      for (let t = 1; t <= 5; t++) {
        expect(await reader.getEvidence(ASSET, t)).to.equal(digest(`e${String(t)}`).hex);
      }
      const again = await readDeployments(join(dataDir, 'deployments.json'));
      expect(again['31337']?.evidenceRepository).to.equal(deployment.evidenceRepository);
      expect(again['31337']?.statusRegistry).to.equal(deployment.statusRegistry);
      expect(deployment.statusRegistry).to.match(/^0x[0-9a-fA-F]{40}$/);
    } finally {
      if (second.pid !== undefined) process.kill(-second.pid, 'SIGKILL');
    }
  });
});
