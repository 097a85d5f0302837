// Which nodes `trustpoint verify` asks, and when their answers count: the instance's own chain on
// whatever port `trustpoint start` runs it, a node of another chain with the same chain id, and
// public endpoints (two operators must agree). Nodes do not depend on the database: one backend
// (the embedded one, as `npm start` runs) is enough here.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deployTrustpoint,
  freePort,
  HARDHAT_DEV_KEY,
  jsonRpcCall,
  startHardhatNode,
  type HardhatNode,
} from '@trustpoint/contracts';
import { closedPort } from '@trustpoint/test-doubles/closed-port';
import {
  answeringTrustPointsWith,
  startJsonRpcRelay,
  type JsonRpcRelay,
} from '@trustpoint/test-doubles/json-rpc-relay';
import { certifyOverHttp } from '@trustpoint/test-kit/fixtures';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import type { TrustFile } from '../src/trust/trust-store.js';
import { trustpoint } from './support/cli-fixture.js';
import { trustpointProcess, type RoleProcess } from './support/role-process.js';

async function untilPinned(service: RoleProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!service.output().includes('pinned in')) {
    if (service.child.exitCode !== null) throw new Error(`exited:\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`not pinned in time:\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('trustpoint verify: the nodes it asks, as npm start runs on other ports', () => {
  let dataDir: string;
  let service: RoleProcess;
  let chainPort: number;
  let chainUrl: string;
  let certApi: string;
  let trustFile: string;
  /** A second Hardhat node: chain id 31337 too, another genesis, the same registry addresses. */
  let impostor: HardhatNode;
  let impostorGenesis: string;
  /** This instance as `trustpoint start` pinned it. */
  let own: TrustFile['origins'][number];
  const relays: JsonRpcRelay[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-verify-nodes-'));
    trustFile = join(dataDir, 'trust.json');
    chainPort = await freePort();
    const certApiPort = await freePort();
    certApi = `http://127.0.0.1:${String(certApiPort)}`;
    chainUrl = `http://127.0.0.1:${String(chainPort)}`;
    service = trustpointProcess(['start'], {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: '',
      CERT_API_PORT: String(certApiPort),
      TRACK_API_PORT: String(await freePort()),
      CHAIN_PORT: String(chainPort),
      TRUSTPOINT_TRUST_FILE: trustFile,
    });
    // Block 0 is dated at the node's start: two chains started in the same second have the same
    // genesis and are, to any verifier, one chain. The impostor's is dated a year back.
    impostor = await startHardhatNode({
      initialDate: new Date(Date.now() - 365 * 86_400_000).toISOString(),
    });
    const provider = new JsonRpcProvider(impostor.url, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    await deployTrustpoint(new Wallet(HARDHAT_DEV_KEY, provider));
    provider.destroy();
    impostorGenesis = (
      (await jsonRpcCall(impostor.url, 'eth_getBlockByNumber', ['0x0', false])) as {
        hash: string;
      }
    ).hash;
    await untilPinned(service);
    const genesis = (
      (await jsonRpcCall(chainUrl, 'eth_getBlockByNumber', ['0x0', false])) as { hash: string }
    ).hash;
    if (genesis === impostorGenesis) throw new Error('the impostor chain has the same genesis');
    [own] = (JSON.parse(await readFile(trustFile, 'utf8')) as TrustFile).origins as [
      TrustFile['origins'][number],
    ];
  }, 180_000);

  afterAll(async () => {
    for (const relay of relays) await relay.close();
    await impostor.stop();
    service.child.kill('SIGTERM');
    await service.exited;
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  const certify = async () => {
    const token = (await readFile(join(dataDir, 'local-token'), 'utf8')).trim();
    const body = await certifyOverHttp(certApi, token);
    const path = join(dataDir, `${randomUUID()}.json`);
    await writeFile(path, JSON.stringify(body));
    return { path, hash: body.data.data.hash };
  };

  /** A trust file pinning this instance as `trustpoint start` did, without its node. */
  const withoutNodes = async () => {
    const path = join(dataDir, `trust-${randomUUID()}.json`);
    const { rpc: _rpc, ...origin } = own;
    await writeFile(path, JSON.stringify({ origins: [origin] }));
    return path;
  };

  /** Public endpoints standing in for a well-known chain: this instance's chain, id 31337. */
  const standIns = async (urls: string[]) => {
    const genesisHash = own.document.networks[0]?.genesisHash ?? '';
    const path = join(dataDir, `public-${randomUUID()}.json`);
    await writeFile(
      path,
      JSON.stringify({
        chains: [
          {
            name: 'Stand-in chain',
            chainId: 31337,
            genesisHash,
            endpoints: urls.map((url, index) => ({ url, operator: `Operator ${String(index)}` })),
          },
        ],
      }),
    );
    return path;
  };

  const relay = async (change?: Parameters<typeof startJsonRpcRelay>[1]) => {
    const started = await startJsonRpcRelay(chainUrl, change);
    relays.push(started);
    return started.url;
  };

  it('when an instance of another chain with the same id was pinned first, then verify with no --rpc still checks against the chain npm start runs on its own port, and names the other one refused', async () => {
    // Arrange: an earlier instance (gone) on the impostor's chain, pinned before this one.
    const earlier = {
      ...own,
      document: {
        ...own.document,
        origin: `http://127.0.0.1:${String(await closedPort())}`,
        networks: own.document.networks.map((network) => ({
          ...network,
          genesisHash: impostorGenesis,
        })),
      },
      rpc: { '31337': [impostor.url] },
    };
    await writeFile(trustFile, JSON.stringify({ origins: [earlier, own] }));
    const { path } = await certify();
    const pageNodes = await fetch(`${certApi}/cert/v2/verify/local-nodes.json`);

    // Act
    const result = await trustpoint(['verify', path], { TRUSTPOINT_TRUST_FILE: trustFile });

    // Assert
    expect(own.rpc).toEqual({ '31337': [chainUrl] });
    expect(own.document.networks[0]?.registries).toEqual(earlier.document.networks[0]?.registries);
    await expect(pageNodes.json()).resolves.toEqual({ nodes: { '31337': [chainUrl] } });
    expect(result.code, result.stdout).toBe(EXIT.ok);
    expect(result.stdout).toContain('VERIFIED');
    expect(result.stdout).toContain(chainUrl);
    expect(result.stdout).toContain(`${impostor.url} failed`);
    expect(result.stdout).not.toContain('127.0.0.1:8545');
  });

  it('when the only node given is of another chain with the same chain id, then it is refused, named, and nothing is verified (exit 10)', async () => {
    const { path } = await certify();

    const result = await trustpoint(['verify', path, '--rpc', `31337=${impostor.url}`], {
      TRUSTPOINT_TRUST_FILE: await withoutNodes(),
    });

    expect(result.code, result.stdout).toBe(EXIT.unchecked);
    expect(result.stdout).toContain(impostor.url);
    expect(result.stdout).toContain('another chain with the same chain id');
    expect(result.stdout).not.toContain('VERIFIED');
  });

  it('when you pin the registry with --contract and no --genesis, then the chain your trust file pins for the network is the one meant: a node of another chain with the same id is refused for your pin too (exit 10)', async () => {
    const { path } = await certify();
    const registry = own.document.networks[0]?.registries.find(
      (entry) => entry.kind === 'trustPointRegistry',
    )?.address;

    const result = await trustpoint(
      ['verify', path, '--rpc', `31337=${impostor.url}`, '--contract', `31337=${registry ?? ''}`],
      { TRUSTPOINT_TRUST_FILE: await withoutNodes() },
    );

    // Before, your pin took any node answering 31337: the impostor was asked and said NOT FOUND.
    expect(result.code, result.stdout).toBe(EXIT.unchecked);
    expect(result.stdout).toContain('another chain with the same chain id');
    expect(result.stdout).not.toContain('NOT FOUND');
  });

  it('when two public endpoints of different operators agree, then it is VERIFIED with the chain time, naming both', async () => {
    const { path } = await certify();
    const second = await relay();

    const result = await trustpoint(
      ['verify', path, '--public-endpoints', await standIns([chainUrl, second]), '--json'],
      { TRUSTPOINT_TRUST_FILE: await withoutNodes() },
    );

    expect(result.code, result.stdout).toBe(EXIT.ok);
    const verification = JSON.parse(result.stdout) as {
      trustpoints: { nodes?: string[]; chainTime?: { blockNumber: number } }[];
      status: { nodes?: string[] }[];
    };
    expect(verification.trustpoints[0]?.nodes).toEqual([chainUrl, second]);
    expect(verification.trustpoints[0]?.chainTime?.blockNumber).toBeGreaterThan(0);
    expect(verification.status[0]?.nodes).toEqual([chainUrl, second]);
  });

  it('when a public endpoint answers another record, then the endpoints disagree: NOT CHECKED (exit 10), each answer shown', async () => {
    const { path, hash } = await certify();
    const other = 'ab'.repeat(32);
    const liar = await relay(answeringTrustPointsWith(other));

    const result = await trustpoint(
      ['verify', path, '--public-endpoints', await standIns([chainUrl, liar])],
      { TRUSTPOINT_TRUST_FILE: await withoutNodes() },
    );

    expect(result.code, result.stdout).toBe(EXIT.unchecked);
    expect(result.stdout).toContain('PUBLIC ENDPOINTS DISAGREE');
    expect(result.stdout).toContain(`${chainUrl} answered hash ${hash}`);
    expect(result.stdout).toContain(`${liar} answered hash ${other}`);
  });

  it('when one public endpoint is of another chain with the same chain id, then it is refused and one endpoint alone is not enough (exit 10)', async () => {
    const { path } = await certify();

    const result = await trustpoint(
      ['verify', path, '--public-endpoints', await standIns([chainUrl, impostor.url])],
      { TRUSTPOINT_TRUST_FILE: await withoutNodes() },
    );

    expect(result.code, result.stdout).toBe(EXIT.unchecked);
    expect(result.stdout).toContain(`${impostor.url} failed`);
    expect(result.stdout).toContain('another chain with the same chain id');
    expect(result.stdout).toContain('at least 2 operators must agree');
  });
});
