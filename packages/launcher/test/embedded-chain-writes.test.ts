import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HARDHAT_DEV_KEY,
  readChainWriteKey,
  TrustPointBatchRegistry__factory,
} from '@trustpoint/registry-abi';
import { JsonRpcProvider, JsonRpcSigner, keccak256, toUtf8Bytes, Wallet } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type RunningTrustpoint } from '../src/launcher.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });
/** Hardhat's account #0: the admin and registrar of the embedded registries. */
const ADMIN = new Wallet(HARDHAT_DEV_KEY).address;
const REFUSED = /takes transactions only from the Trustpoint service that runs it/;

describe('Embedded chain writes', () => {
  let running: RunningTrustpoint;
  let dataDir: string;
  let chainUrl: string;
  let registryAddress: string;
  let provider: JsonRpcProvider;
  const forgedKey = keccak256(toUtf8Bytes('did:trustpoint:certid:forged'));
  const forgedHash = keccak256(toUtf8Bytes('forged document'));

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-writes-'));
    running = await launch('all', await testLaunchConfig(dataDir), silent);
    if (running.embeddedChain === undefined) throw new Error('the embedded chain did not start');
    chainUrl = running.embeddedChain.url;
    registryAddress = running.embeddedChain.deployment.trustPointRegistry;
    provider = new JsonRpcProvider(chainUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  }, 120_000);

  afterAll(async () => {
    provider.destroy();
    await running.stop();
  });

  it('when the service certifies on the embedded chain, then it anchors there with the chain write key, which /networks never shows', async () => {
    // Act
    const created = await fetch(`${running.certApiUrl}/certificates?type=content&networkId=31337`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${running.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Hello', description: '', content: { hello: 'world' } }),
    });
    const networks = await (await fetch(`${running.certApiUrl}/networks`)).text();

    // Assert
    expect(created.status).toBe(201);
    const { metadata } = (
      (await created.json()) as { data: { metadata: { transactionHash: string }[] } }
    ).data;
    const receipt = await provider.getTransactionReceipt(metadata[0]?.transactionHash ?? '');
    expect(receipt?.status).toBe(1);
    const key = await readChainWriteKey(join(dataDir, 'chain'));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(networks).not.toContain(key);
  });

  it('when anyone else sends registerTrustPoint through the chain port from the admin account, then it is refused and nothing is registered', async () => {
    // Arrange
    const registry = TrustPointBatchRegistry__factory.connect(
      registryAddress,
      new JsonRpcSigner(provider, ADMIN),
    );
    const blockBefore = await provider.getBlockNumber();

    // Act
    const unlocked = await registry
      .registerTrustPoint(forgedKey, forgedHash, 0, 1, { gasLimit: 500_000 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    const signed = await registry
      .connect(new Wallet(HARDHAT_DEV_KEY, provider))
      .registerTrustPoint(forgedKey, forgedHash, 0, 1, { gasLimit: 500_000 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    // Assert
    expect(String(unlocked)).toMatch(REFUSED);
    expect(String(signed)).toMatch(REFUSED);
    expect(await provider.getBlockNumber()).toBe(blockBefore);
    const [found] = await TrustPointBatchRegistry__factory.connect(
      registryAddress,
      provider,
    ).findTrustPoint(forgedKey, 1);
    expect(found).toBe(false);
  });
});
