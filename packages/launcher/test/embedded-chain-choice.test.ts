import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEmbeddedChainUrl, wantsEmbeddedChain } from '../src/embedded-chain-choice.js';

const CHAIN = { host: '127.0.0.1', port: 8545 };

async function networksFile(networks: unknown[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'trustpoint-choice-')), 'networks.json');
  await writeFile(path, JSON.stringify({ networks }));
  return path;
}

const sepolia = {
  networkId: '11155111',
  rpcUrl: 'https://sepolia.example.org',
  chainId: 11155111,
  signerKeyEnv: 'SEPOLIA_REGISTRAR_KEY',
};

describe('Which start runs the embedded chain', () => {
  it('when no networks file is given, then the embedded chain runs: it is the only network', async () => {
    expect(await wantsEmbeddedChain(undefined, CHAIN)).toBe(true);
  });

  it('when the networks file names only remote networks, then the embedded chain does not run', async () => {
    expect(await wantsEmbeddedChain(await networksFile([sepolia]), CHAIN)).toBe(false);
  });

  it('when the networks file names chain 31337 at the embedded chain address, then it runs', async () => {
    const local = { networkId: '31337', rpcUrl: 'http://127.0.0.1:8545', chainId: 31337 };

    expect(await wantsEmbeddedChain(await networksFile([sepolia, local]), CHAIN)).toBe(true);
  });

  it('when chain 31337 is at another address, or another chain at the embedded address, then it is a node of the operator and the embedded chain does not run', async () => {
    const elsewhere = { networkId: '31337', rpcUrl: 'http://10.0.0.5:8545', chainId: 31337 };
    const otherChain = { networkId: '1337', rpcUrl: 'http://127.0.0.1:8545', chainId: 1337 };

    expect(await wantsEmbeddedChain(await networksFile([elsewhere]), CHAIN)).toBe(false);
    expect(await wantsEmbeddedChain(await networksFile([otherChain]), CHAIN)).toBe(false);
  });

  it('when the networks file is missing or malformed, then the embedded chain does not run (loading the networks reports the file)', async () => {
    expect(await wantsEmbeddedChain('/nonexistent/networks.json', CHAIN)).toBe(false);
    expect(await wantsEmbeddedChain(await networksFile([{ networkId: 1 }]), CHAIN)).toBe(false);
  });

  it.each([
    ['http://127.0.0.1:8545', CHAIN, true],
    ['http://localhost:8545/', CHAIN, true],
    ['http://[::1]:8545', CHAIN, true],
    ['http://localhost:8545', { host: '0.0.0.0', port: 8545 }, true],
    ['http://192.168.1.20:8545', { host: '192.168.1.20', port: 8545 }, true],
    ['http://localhost:8545', { host: '192.168.1.20', port: 8545 }, false],
    ['http://127.0.0.1:9545', CHAIN, false],
    ['https://127.0.0.1:8545', CHAIN, false],
    ['http://127.0.0.1', CHAIN, false],
    ['http://node.example.org:8545', CHAIN, false],
  ])(
    'when the RPC URL is %s and the chain listens on %o, then it is the embedded chain: %s',
    (url, chain, expected) => {
      expect(isEmbeddedChainUrl(url, chain)).toBe(expected);
    },
  );
});
