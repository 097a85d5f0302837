// `trustpoint verify` on a copy listing more trustpoints than a certificate may: a usage error
// before any node is asked (a forger's probe listed 3,000 to make verifiers read the chain that
// many times). The node is a real HTTP listener that counts what it is asked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CERTIFICATE_TRUSTPOINTS } from '@trustpoint/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { trustpoint } from './support/cli-fixture.js';

const HASH = 'a'.repeat(64);

/** A copy with `count` Evidence items at successive times. */
const copyListing = (count: number) => ({
  certID: 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12',
  data: {
    name: 'Order',
    description: '',
    type: 'content',
    content: { order: 1 },
    issuer: 'did:user:someone',
    issuedOn: 1_767_225_600_000,
    hash: HASH,
  },
  metadata: Array.from({ length: count }, (_, index) => ({
    type: 'Evidence',
    networkId: 31337,
    smartContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    transactionHash: `0x${'ab'.repeat(32)}`,
    trustPointHash: HASH,
    timestamp: 1_767_225_600_001 + index,
  })),
});

describe('trustpoint verify: trustpoints a copy may list', () => {
  let node: Server;
  let nodeUrl: string;
  let asked = 0;
  let dir: string;

  beforeAll(async () => {
    node = createServer((_request, response) => {
      asked += 1;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    nodeUrl = `http://127.0.0.1:${String((node.address() as AddressInfo).port)}`;
    dir = await mkdtemp(join(tmpdir(), 'trustpoint-copy-limits-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      node.close(() => {
        resolve();
      });
    });
  });

  const verify = async (count: number) => {
    const path = join(dir, `listing-${String(count)}.json`);
    await writeFile(path, JSON.stringify(copyListing(count)));
    const before = asked;
    const result = await trustpoint(['verify', path, '--rpc', `31337=${nodeUrl}`]);
    return { ...result, asked: asked - before };
  };

  it('when a copy lists 3,000 trustpoints, or one more than the limit, then it is a usage error (exit 2) saying so, and the node is asked nothing', async () => {
    const forged = await verify(3_000);
    const oneMore = await verify(MAX_CERTIFICATE_TRUSTPOINTS + 1);

    expect(forged.code).toBe(EXIT.usage);
    expect(forged.stderr).toContain(
      '$.metadata lists 3000 trustpoints; a certificate lists at most 64',
    );
    expect(forged.stdout).toBe('');
    expect(forged.asked).toBe(0);
    expect(oneMore.code).toBe(EXIT.usage);
    expect(oneMore.stderr).toContain('$.metadata lists 65 trustpoints');
    expect(oneMore.asked).toBe(0);
  });

  it('when a copy lists as many as the limit, then it is checked: the node is asked', async () => {
    const atLimit = await verify(MAX_CERTIFICATE_TRUSTPOINTS);

    expect(atLimit.code).not.toBe(EXIT.usage);
    expect(atLimit.asked).toBeGreaterThan(0);
  });
});
