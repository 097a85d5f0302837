import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testBackends } from '@trustpoint/test-database';
import { closedPort } from '@trustpoint/test-doubles/closed-port';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { deployForgedRegistry } from '@trustpoint/test-doubles/forged-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import {
  localTrustFile,
  startService,
  trustpoint,
  type RunningService,
} from './support/cli-fixture.js';

describe.each(testBackends())('trustpoint verify against a running service on %s', (backend) => {
  let service: RunningService;
  let chainUrl: string;
  let downUrl: string;
  let dir: string;
  // A real DNS server on a local port: the service checks domain proofs there, and so does verify.
  let dns: LocalDns;

  const api = async (path: string, init: RequestInit = {}, base = service.running.certApiUrl) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${service.running.token}`);
    const response = await fetch(`${base}${path}`, { ...init, headers });
    const body = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const json = (body: unknown): RequestInit => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const createContentCertificate = () =>
    api(
      '/certificates?type=content&networkId=31337',
      json({
        name: 'Order',
        description: 'verify test',
        public: true,
        content: { order: randomUUID(), total: '12.50 EUR' },
      }),
    );
  const saved = async (name: string, value: unknown) => {
    const path = join(dir, name);
    await writeFile(path, JSON.stringify(value, null, 2));
    return path;
  };
  let trustFile: string;
  // As `trustpoint start` does on its own machine: the instance pinned as local, with its node.
  const verify = (args: string[]) =>
    trustpoint(['verify', ...args], { TRUSTPOINT_TRUST_FILE: trustFile });

  beforeAll(async () => {
    dns = await startLocalDns();
    service = await startService(backend, { dnsServers: [dns.server] });
    const chain = service.running.embeddedChain;
    if (chain === undefined) throw new Error('the service runs no embedded chain');
    chainUrl = chain.url;
    downUrl = `http://127.0.0.1:${await closedPort()}`;
    dir = await mkdtemp(join(tmpdir(), 'trustpoint-verify-'));
    trustFile = await localTrustFile(service);
  }, 120_000);

  afterAll(async () => {
    await service.running.stop();
    await dns.close();
  });

  it('when the issuer proved a domain, then verify shows it proven by the DNS; once the record is gone it is a claim, and the verdict stays VERIFIED', async () => {
    const domain = `u${randomUUID().slice(0, 8)}.example`;
    const claim = await api('/issuer-domains', json({ domain }));
    const record = claim.data.record as { name: string; value: string };
    dns.zone.set(record.name, [record.value]);
    await api(`/issuer-domains/${domain}/check`, { method: 'POST' });
    const certificate = await createContentCertificate();
    const path = await saved('proven-domain.json', certificate);

    const proven = await verify([path, '--dns-server', dns.server]);
    const asJson = await verify([path, '--dns-server', dns.server, '--json']);
    dns.zone.delete(record.name);
    const removed = await verify([path, '--dns-server', dns.server]);

    await api(`/issuer-domains/${domain}`, { method: 'DELETE' });
    expect((certificate.data.data as { issuerDomain?: string }).issuerDomain).toBe(domain);
    expect(proven.code).toBe(EXIT.ok);
    expect(proven.stdout).toContain(`Identity: ${domain}, PROVEN by its DNS`);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      issuer: { identity: { domain, outcome: 'proven', recordName: record.name } },
    });
    expect(removed.code).toBe(EXIT.ok);
    expect(removed.stdout).toContain(`Identity: ${domain}, NOT PROVEN, a claim`);
    expect(removed.stdout).toContain("are the issuer's claims, not proven");
  });

  it('when a customer claims a domain with `trustpoint domains`, publishes the record it prints and has it checked, then it is proven and their certificates name it; released, they no longer do', async () => {
    const domain = `d${randomUUID().slice(0, 8)}.example`;
    const domains = (args: string[]) =>
      trustpoint(['domains', ...args, '--url', service.url], {
        TRUSTPOINT_TOKEN: service.running.token,
      });

    const claimed = await domains(['claim', domain.toUpperCase(), '--json']);
    const claim = JSON.parse(claimed.stdout) as {
      domain: string;
      status: string;
      record: { name: string; value: string };
    };
    const unpublished = await domains(['check', domain]);
    dns.zone.set(claim.record.name, [claim.record.value]);
    const proven = await domains(['check', domain]);
    const listed = await domains(['list']);
    const named = await createContentCertificate();
    const released = await domains(['release', domain]);
    const after = await createContentCertificate();
    const notADomain = await domains(['claim', 'https://university.example/']);
    dns.zone.delete(claim.record.name);

    expect(claimed.code).toBe(EXIT.ok);
    expect(claim).toMatchObject({ domain, status: 'pending' });
    expect(claim.record.name).toBe(`_trustpoint.${domain}`);
    expect(claim.record.value).toContain(`origin=${service.url}`);
    expect(unpublished.code).toBe(EXIT.failure);
    expect(unpublished.stderr).toContain(`domain ${domain} not proven`);
    expect(proven.code).toBe(EXIT.ok);
    expect(proven.stdout).toContain('proven');
    expect(listed.stdout).toContain(domain);
    expect((named.data.data as { issuerDomain?: string }).issuerDomain).toBe(domain);
    expect(released.code).toBe(EXIT.ok);
    expect((after.data.data as { issuerDomain?: string }).issuerDomain).toBeUndefined();
    expect(notADomain.code).toBe(EXIT.usage);
  });

  it('when a certificate just made is verified from its JSON, then every trustpoint is anchored, the node is named and the exit code is 0', async () => {
    const certificate = await createContentCertificate();
    const path = await saved('content.json', certificate);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain('VERIFIED');
    expect(result.stdout).toContain('anchored, matches');
    expect(result.stdout).toContain(chainUrl);
    expect(result.stdout).toContain(
      `Issued by: ${service.url}, account ${(certificate.data.data as { issuer: string }).issuer}: an origin you trust`,
    );
  });

  it('when its registries are trusted through another origin but not the one the certificate names, then the issuer is not trusted (exit 15), the origin shown with how to trust it; trusting the origin as this machine pins it verifies it, and --issuer, away from it, does not vouch for development registries', async () => {
    const certificate = await createContentCertificate();
    const path = await saved('other-origin.json', certificate);
    // A service sharing this one's registries: what it pins is trusted, this origin is not.
    const sharing = await localTrustFile(service, { origin: 'http://127.0.0.1:1' });

    const text = await trustpoint(['verify', path], { TRUSTPOINT_TRUST_FILE: sharing });
    const asJson = await trustpoint(['verify', path, '--json'], { TRUSTPOINT_TRUST_FILE: sharing });
    const trusting = await trustpoint(['verify', path, '--issuer', service.url], {
      TRUSTPOINT_TRUST_FILE: sharing,
    });
    const trustedHere = await verify([path]);

    expect(text.code).toBe(EXIT.issuerUntrusted);
    expect(text.stdout).toContain('ISSUER NOT TRUSTED');
    expect(text.stdout).toContain(`Issued by: ${service.url}, account did:user:`);
    expect(text.stdout).toContain(`you do not trust ${service.url}`);
    expect(text.stdout).toContain(`trustpoint trust add ${service.url}`);
    // A loopback origin is trusted with its chain's node by `trust add`; --issuer would not be.
    expect(text.stdout).not.toContain(`--issuer ${service.url}`);
    expect(text.stderr).toContain('certificate issuerUntrusted');
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      verdict: 'issuerUntrusted',
      verified: false,
      trustpoints: [{ verdict: 'anchored', trustedThrough: 'http://127.0.0.1:1' }],
      issuer: {
        origin: service.url,
        originTrusted: false,
        outcome: 'untrusted',
        covered: true,
        // The service's loopback http origin: never read because a certificate names it.
        registry: {
          outcome: 'notRead',
          detail:
            'not read: an http, loopback or private origin named in a certificate is never fetched',
        },
      },
    });
    // --issuer reads the document now, not as this machine's own pin: the registries held by the
    // development accounts are trusted through it nowhere, so it does not vouch for the record.
    expect(trusting.code).toBe(EXIT.issuerUntrusted);
    expect(trusting.stdout).toContain(
      `${service.url} does not vouch for it: not held under the pin of ${service.url}`,
    );
    expect(trustedHere.code).toBe(EXIT.ok);
    expect(trustedHere.stdout).toContain(`Issued by: ${service.url}`);
    expect(trustedHere.stdout).toContain('an origin you trust');
  });

  it("when a loopback origin is trusted with `trust add`, then it is pinned as this machine's own instance with its chain's node, and its certificates verify without --rpc, as on the web page", async () => {
    // Arrange: a trust file that trusts nothing yet, as on a machine running roles of its own.
    const path = await saved('trust-add-local.json', await createContentCertificate());
    const fresh = join(dir, `trust-${randomUUID()}.json`);

    // Act
    const added = await trustpoint(['trust', 'add', service.url], { TRUSTPOINT_TRUST_FILE: fresh });
    const verified = await trustpoint(['verify', path], { TRUSTPOINT_TRUST_FILE: fresh });

    // Assert
    expect(added.code).toBe(EXIT.ok);
    expect(added.stdout).toContain("This machine's own instance");
    const pinned = JSON.parse(await readFile(fresh, 'utf8')) as {
      origins: { local?: boolean; rpc?: Record<string, string[]> }[];
    };
    expect(pinned.origins[0]?.local).toBe(true);
    expect(pinned.origins[0]?.rpc).toEqual({ '31337': [chainUrl] });
    expect(verified.stdout).toContain('VERIFIED');
    expect(verified.code).toBe(EXIT.ok);
  });

  it('when only a certID is given, then the certificate is read from the service and checked on the node given', async () => {
    const { data } = await createContentCertificate();

    const result = await verify([
      String(data.certID),
      '--url',
      service.url,
      '--rpc',
      `31337=${chainUrl}`,
      '--json',
    ]);

    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({
      certID: data.certID,
      verified: true,
      trustpoints: [{ type: 'Evidence', verdict: 'anchored', node: chainUrl }],
    });
  });

  it('when the certificate JSON was changed, then the verdict is a mismatch and the exit code 7', async () => {
    const certificate = await createContentCertificate();
    const data = certificate.data as { data: { content: Record<string, unknown> } };
    data.data.content.total = '1.00 EUR';
    const path = await saved('tampered.json', certificate);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`]);

    expect(result.code).toBe(EXIT.mismatch);
    expect(result.stdout).toContain('MISMATCH');
    expect(result.stderr).toContain('certificate mismatch');
  });

  it('when the trustpoint is not on chain under its key, then it is not found and the exit code 8', async () => {
    // The certID is covered by the hash (version 2): a copy with another one is a mismatch. A
    // trustpoint named at another time is under a key the chain does not have.
    const certificate = await createContentCertificate();
    const data = certificate.data as { metadata: { timestamp: number }[] };
    for (const trustpoint of data.metadata) trustpoint.timestamp += 1;
    const path = await saved('unknown.json', certificate);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`, '--json']);

    expect(result.code).toBe(EXIT.notOnChain);
    expect(JSON.parse(result.stdout)).toMatchObject({
      verdict: 'notFound',
      trustpoints: [{ verdict: 'notFound', node: chainUrl }],
    });
  });

  it('when --url names the API base (.../cert/v2/) as the page takes it, then the certificate is read all the same', async () => {
    const { data } = await createContentCertificate();

    const result = await verify([String(data.certID), '--url', `${service.url}/cert/v2/`]);

    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain('VERIFIED');
  });

  it("when a forger's service answers another genuine certificate for the certID asked, then nothing is verified (exit 7) and the message names both", async () => {
    // A look-alike of the forger's own: genuine, on chain, another certID.
    const asked = await createContentCertificate();
    const lookAlike = await createContentCertificate();
    const forger = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(lookAlike));
    });
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    const forgerUrl = `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}`;

    try {
      const result = await verify([String(asked.data.certID), '--url', forgerUrl]);

      expect(result.code).toBe(EXIT.mismatch);
      expect(result.stderr).toContain(
        `the service answered certificate ${String(lookAlike.data.certID)} when asked for ${String(asked.data.certID)}`,
      );
      expect(result.stdout).not.toContain('VERIFIED');
    } finally {
      await new Promise((resolve) => forger.close(resolve));
    }
  });

  it('when a service answers the certificate asked for with a member named twice, then it is refused as the same bytes given as a file are (exit 2), naming the member', async () => {
    // Arrange: the genuine certificate, `name` given twice by a forger's service, the genuine
    // value last (what JSON.parse keeps, so it would verify while other readers show the first).
    const asked = await createContentCertificate();
    const text = JSON.stringify(asked).replace(
      '"name":"Order"',
      '"name":"Forged Mallory","name":"Order"',
    );
    const forger = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(text);
    });
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    const forgerUrl = `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}`;

    try {
      // Act
      const fetched = await verify([
        String(asked.data.certID),
        '--url',
        forgerUrl,
        '--rpc',
        `31337=${chainUrl}`,
      ]);
      const file = join(dir, 'certificate-duplicate-member.json');
      await writeFile(file, text);
      const asFile = await verify([file, '--rpc', `31337=${chainUrl}`]);

      // Assert
      expect(text).toContain('"name":"Forged Mallory","name":"Order"');
      expect(fetched.code).toBe(EXIT.usage);
      expect(fetched.stderr).toContain('$.data.data.name is given twice');
      expect(fetched.stdout).not.toContain('VERIFIED');
      expect(asFile.code).toBe(fetched.code);
      expect(asFile.stderr).toContain('$.data.data.name is given twice');
    } finally {
      forger.closeAllConnections();
      await new Promise((resolve) => forger.close(resolve));
    }
  });

  it('when a private certificate is asked for by certID without a token, then the exit code is 4 and the message says what to do', async () => {
    const { data } = await api(
      '/certificates?type=content&networkId=31337',
      json({ name: 'Private', description: 'verify test', content: { secret: randomUUID() } }),
    );

    const result = await verify([String(data.certID), '--url', service.url]);

    expect(result.code).toBe(EXIT.notFound);
    expect(result.stderr).toContain('--token');
    expect(result.stderr).toContain('trustpoint verify certificate.json');
  });

  it('when a certID the service does not know is asked for, then the exit code is 4', async () => {
    const result = await verify([
      `did:trustpoint:certid:${randomUUID()}`,
      '--url',
      service.url,
      '--rpc',
      `31337=${chainUrl}`,
    ]);

    expect(result.code).toBe(EXIT.notFound);
    expect(result.stderr).toContain('404');
  });

  it('when the first node is down and a second works, then the second answers, both are named and it verifies', async () => {
    const path = await saved('backup.json', await createContentCertificate());

    const result = await verify([path, '--rpc', `31337=${downUrl}`, '--rpc', `31337=${chainUrl}`]);

    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain(chainUrl);
    expect(result.stdout).toContain(`${downUrl} failed`);
  });

  it('when the nodes come from a networks file, then they are asked after --rpc, in order, and the one that answered is named', async () => {
    const certificate = await createContentCertificate();
    const path = await saved('networks-file.json', certificate);
    const networks = await saved('networks.json', {
      networks: [
        {
          networkId: '31337',
          rpcUrl: downUrl,
          rpcUrls: [chainUrl],
          trustPointRegistry: (certificate.data.metadata as { smartContract: string }[])[0]
            ?.smartContract,
        },
      ],
    });

    const result = await verify([path, '--networks', networks, '--json']);

    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({
      trustpoints: [{ node: chainUrl, attempts: [{ url: downUrl }] }],
    });
  });

  it('when the certificate names a contract the forger deployed, which answers the forged hash, then it is not trusted (exit 12) and the registry is shown', async () => {
    const certificate = (await createContentCertificate()) as {
      data: { data: { hash: string }; metadata: { smartContract: string }[] };
    };
    const chain = service.running.embeddedChain;
    if (chain === undefined) throw new Error('the service runs no embedded chain');
    const forged = await deployForgedRegistry(chain, certificate.data.data.hash);
    certificate.data.metadata = certificate.data.metadata.map((item) => ({
      ...item,
      smartContract: forged,
    }));
    const path = await saved('forged-registry.json', certificate);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`]);

    expect(result.code).toBe(EXIT.untrusted);
    expect(result.stdout).toContain('NOT TRUSTED');
    expect(result.stdout).toContain(forged);
  });

  it('when nothing is trusted, then a genuine certificate is not trusted (exit 12), and pinning its registry with --contract verifies it', async () => {
    const certificate = (await createContentCertificate()) as {
      data: { metadata: { smartContract: string }[] };
    };
    const path = await saved('unpinned.json', certificate);
    const untrusting = (args: string[]) =>
      trustpoint(['verify', path, '--rpc', `31337=${chainUrl}`, ...args]);

    const bare = await untrusting([]);
    const empty = await trustpoint(['verify', path, '--rpc', `31337=${chainUrl}`], {
      TRUSTPOINT_TRUST_FILE: '/dev/null',
    });
    const pinned = await untrusting([
      '--contract',
      `31337=${certificate.data.metadata[0]?.smartContract ?? ''}`,
    ]);

    expect(bare.code).toBe(EXIT.untrusted);
    expect(bare.stdout).toContain('nothing you trust pins network 31337');
    expect(empty.code).toBe(EXIT.untrusted);
    // Pinned by the user themselves: the development registry is their own choice.
    expect(pinned.stdout).toMatch(/development account|VERIFIED/);
  });

  it("when --genesis pins another chain's block 0 for the network of --contract, then the node is refused and nothing is verified; its own block 0 is accepted", async () => {
    const certificate = (await createContentCertificate()) as {
      data: { metadata: { smartContract: string }[] };
    };
    const path = await saved('genesis-pinned.json', certificate);
    const genesis = (
      (await (
        await fetch(chainUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'eth_getBlockByNumber',
            params: ['0x0', false],
          }),
        })
      ).json()) as { result: { hash: string } }
    ).result.hash;
    const pinnedWith = (hash: string) =>
      trustpoint(
        [
          'verify',
          path,
          '--rpc',
          `31337=${chainUrl}`,
          '--contract',
          `31337=${certificate.data.metadata[0]?.smartContract ?? ''}`,
          '--genesis',
          `31337=${hash}`,
        ],
        { TRUSTPOINT_TRUST_FILE: '/dev/null' },
      );

    const otherChain = await pinnedWith(`0x${'0f'.repeat(32)}`);
    const ownChain = await pinnedWith(genesis);
    const malformed = await pinnedWith('0x12');

    expect(otherChain.code).toBe(EXIT.unchecked);
    expect(otherChain.stdout).toContain('another chain with the same chain id');
    // On its own chain the node is believed; the registry is the development accounts'.
    expect(ownChain.stdout).not.toContain('another chain with the same chain id');
    expect(ownChain.stdout).toContain('development account');
    expect(malformed.code).toBe(EXIT.usage);
  });

  it('when a copy names a member twice, then it is refused before anything is asked, naming the member', async () => {
    const certificate = await createContentCertificate();
    const text = JSON.stringify(certificate).replace(
      '"name":"Order"',
      '"name":"Forged","name":"Order"',
    );
    const path = join(dir, 'duplicate-member.json');
    await writeFile(path, text);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`]);

    expect(text).toContain('"name":"Forged","name":"Order"');
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('$.data.data.name is given twice');
  });

  it('when a copy writes a number with more digits than its value holds, then it is refused before anything is asked, naming it', async () => {
    // Arrange: issuedOn with a fraction JSON.parse drops (it reads the genuine integer) and a
    // decimal reader shows.
    const certificate = await createContentCertificate();
    const text = JSON.stringify(certificate).replace(
      /"issuedOn":(\d+)/,
      (_match, digits: string) => `"issuedOn":${digits}.0000000000000001`,
    );
    const path = join(dir, 'inexact-number.json');
    await writeFile(path, text);

    // Act
    const result = await verify([path, '--rpc', `31337=${chainUrl}`]);

    // Assert
    expect(text).toContain('.0000000000000001');
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('$.data.data.issuedOn is written');
  });

  it('when the service is trusted with --issuer but runs on the development accounts, then its registry is not trusted off the machine that started it', async () => {
    const path = await saved('dev-issuer.json', await createContentCertificate());

    const result = await trustpoint([
      'verify',
      path,
      '--rpc',
      `31337=${chainUrl}`,
      '--issuer',
      service.url,
    ]);

    expect(result.code).toBe(EXIT.untrusted);
    expect(result.stdout).toContain('well-known development account');
  });

  it('when the only node is down, then the trustpoint is unreachable and the exit code 10', async () => {
    const path = await saved('down.json', await createContentCertificate());
    // The instance pinned without its node: only the one given is asked.
    const withoutNodes = await localTrustFile(service, { withNodes: false });

    const result = await trustpoint(['verify', path, '--rpc', downUrl], {
      TRUSTPOINT_TRUST_FILE: withoutNodes,
    });

    expect(result.code).toBe(EXIT.unchecked);
    expect(result.stdout).toContain('node unreachable');
  });

  it('when no node is named and the local chain runs on another CHAIN_PORT, then verify asks it there, as trustpoint start runs it', async () => {
    // Arrange: the instance pinned without its node, so only the default is left to ask.
    const path = await saved('chain-port.json', await createContentCertificate());
    const withoutNodes = await localTrustFile(service, { withNodes: false });
    const chain = new URL(chainUrl);

    // Act
    const result = await trustpoint(['verify', path], {
      TRUSTPOINT_TRUST_FILE: withoutNodes,
      CHAIN_HOST: chain.hostname,
      CHAIN_PORT: chain.port,
    });

    // Assert
    expect(chain.port).not.toBe('8545');
    expect(result.stdout).toContain(`http://${chain.hostname}:${chain.port}`);
    expect(result.stdout).not.toContain(':8545');
    expect(result.code).toBe(EXIT.ok);
  });

  it('when --file names no file (a typo, a folder), then verify stops with a usage error naming it (exit 2), not a failure of the service', async () => {
    // Arrange
    const path = await saved('for-a-missing-file.json', await createContentCertificate());

    // Act
    const missing = await verify([path, '--file', join(dir, 'no-such-file.pdf')]);
    const folder = await verify([path, '--file', dir]);

    // Assert
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain(`--file ${join(dir, 'no-such-file.pdf')}: ENOENT`);
    expect(folder.code).toBe(EXIT.usage);
    expect(folder.stderr).toContain(`--file ${dir}: EISDIR`);
  });

  it('when CHAIN_PORT is not a port, then verify stops with a usage error naming it', async () => {
    // Arrange
    const path = await saved('bad-chain-port.json', await createContentCertificate());

    // Act
    const result = await trustpoint(['verify', path], { CHAIN_PORT: 'eighty' });

    // Assert
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('CHAIN_PORT must be a TCP port');
  });

  it('when a certificate was revoked, then it matches the chain, is reported revoked and exits 9', async () => {
    const { data } = await createContentCertificate();
    const revoked = await api(
      `/certificates/certID/${encodeURIComponent(String(data.certID))}/revoke?networkId=31337`,
      { method: 'PATCH' },
    );
    const path = await saved('revoked.json', revoked);

    const result = await verify([path, '--rpc', `31337=${chainUrl}`, '--json']);

    expect(result.code).toBe(EXIT.revoked);
    expect(JSON.parse(result.stdout)).toMatchObject({
      verdict: 'revoked',
      revoked: true,
      trustpoints: [{ verdict: 'anchored' }, { type: 'Revocation', verdict: 'revoked' }],
    });
  });

  it('when the holder saved the JSON at issuance and the issuer revoked it later, then that copy is found revoked (exit 9), with the chain time of the revocation', async () => {
    const certificate = await createContentCertificate();
    const path = await saved('saved-at-issuance.json', certificate);
    const before = await verify([path, '--rpc', `31337=${chainUrl}`]);
    await api(
      `/certificates/certID/${encodeURIComponent(String(certificate.data.certID))}/revoke?networkId=31337`,
      { method: 'PATCH' },
    );

    const after = await verify([path, '--rpc', `31337=${chainUrl}`]);
    const asJson = await verify([path, '--rpc', `31337=${chainUrl}`, '--json']);

    expect(before.code).toBe(EXIT.ok);
    expect(before.stdout).toContain('not revoked');
    expect(after.code).toBe(EXIT.revoked);
    expect(after.stdout).toContain('REVOKED');
    expect(after.stdout).toMatch(
      /Revoked: on network 31337, recorded \d{4}-\d\d-\d\dT[\d:.]+Z \(chain time\)/,
    );
    const result = JSON.parse(asJson.stdout) as {
      revocation: { recordedAt: number };
      trustpoints: { verdict: string }[];
      status: { outcome: string }[];
    };
    // The copy lists only its Evidence; the status registry found the revocation from its certID.
    expect(result.trustpoints.map((trustpoint) => trustpoint.verdict)).toEqual(['anchored']);
    expect(result.status.map((check) => check.outcome)).toEqual(['revoked']);
    expect(result.revocation.recordedAt % 1000).toBe(0);
  });

  it('when the certificate has expired, then it matches and is trusted, but EXPIRED (exit 13), and a revocation outranks it (exit 9)', async () => {
    const expiring = (expires: number) =>
      api(
        '/certificates?type=content&networkId=31337',
        json({
          name: 'Permit',
          description: 'valid for a moment',
          public: true,
          expires,
          content: { permit: randomUUID() },
        }),
      );
    // An expiry must be later than the creation: a second ahead, then waited out.
    const soon = Date.now() + 1_000;
    const expired = await saved('expired.json', await expiring(soon));
    const revokedExpired = await expiring(soon);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon - Date.now() + 50)));
    await api(
      `/certificates/certID/${encodeURIComponent(String(revokedExpired.data.certID))}/revoke?networkId=31337`,
      { method: 'PATCH' },
    );

    const result = await verify([expired, '--rpc', `31337=${chainUrl}`]);
    const both = await verify([
      await saved('revoked-expired.json', revokedExpired),
      '--rpc',
      `31337=${chainUrl}`,
    ]);

    expect(result.code).toBe(EXIT.expired);
    expect(result.stdout).toContain('EXPIRED');
    expect(both.code).toBe(EXIT.revoked);
  });

  it('when no status registry is trusted for the network, or the one pinned does not answer, then the revocation is not checked (exit 14), never verified', async () => {
    const path = await saved('status-unknown.json', await createContentCertificate());
    const withoutStatus = await localTrustFile(service, { statusRegistry: null });
    // An address with no contract: the call answers nothing a status registry would.
    const silent = await localTrustFile(service, {
      statusRegistry: '0x000000000000000000000000000000000000dEaD',
    });

    const unpinned = await trustpoint(['verify', path, '--rpc', `31337=${chainUrl}`], {
      TRUSTPOINT_TRUST_FILE: withoutStatus,
    });
    const unanswered = await trustpoint(['verify', path, '--rpc', `31337=${chainUrl}`], {
      TRUSTPOINT_TRUST_FILE: silent,
    });

    expect(unpinned.code).toBe(EXIT.revocationUnchecked);
    expect(unpinned.stdout).toContain('REVOCATION NOT CHECKED');
    expect(unpinned.stdout).toContain('no status registry for network 31337');
    expect(unanswered.code).toBe(EXIT.revocationUnchecked);
    expect(unanswered.stdout).toContain('0x000000000000000000000000000000000000dEaD');
  });

  describe('qualified signatures', () => {
    const signedCertificate = async () => {
      const { data } = await createContentCertificate();
      return api(
        `/certificates/certID/${encodeURIComponent(String(data.certID))}/signature?networkId=31337`,
        { method: 'POST' },
      );
    };

    it("when a certificate was signed, then the JWS verifies with the service's key set and the exit code is 0", async () => {
      const path = await saved('signed.json', await signedCertificate());

      const result = await verify([path, '--rpc', `31337=${chainUrl}`, '--url', service.url]);

      expect(result.code).toBe(EXIT.ok);
      expect(result.stdout).toContain('signed, signature valid');
      expect(result.stdout).toContain('/cert/v2/.well-known/jwks.json');
    });

    it('when the key set is given as a file of another key, then the signature is invalid and the exit code 7', async () => {
      const path = await saved('signed-other-key.json', await signedCertificate());
      const otherKeys = await saved('other-jwks.json', {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
            y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
            kid: 'other',
            alg: 'ES256',
          },
        ],
      });

      const result = await verify([path, '--rpc', `31337=${chainUrl}`, '--jwks', otherKeys]);

      expect(result.code).toBe(EXIT.mismatch);
      expect(result.stdout).toContain('SIGNATURE INVALID');
    });
  });

  describe('file certificates', () => {
    const bytes = () => new TextEncoder().encode(`contract ${randomUUID()}\n`);
    const certify = async (content: Uint8Array) => {
      const form = new FormData();
      form.append('fileInput', new Blob([content]), 'contract.txt');
      form.append('body', JSON.stringify({ name: 'Contract', description: '', public: true }));
      return api('/certificates?type=file&networkId=31337', { method: 'POST', body: form });
    };

    it('when the certified file is given, then its hashes are recomputed and it verifies', async () => {
      const content = bytes();
      const certificate = await certify(content);
      const file = join(dir, 'contract.txt');
      await writeFile(file, content);
      const path = await saved('file.json', certificate);

      const result = await verify([path, '--file', file, '--rpc', `31337=${chainUrl}`, '--json']);

      expect(result.code).toBe(EXIT.ok);
      expect(JSON.parse(result.stdout)).toMatchObject({
        verified: true,
        hash: {
          matches: true,
          fileHash: { recomputed: (certificate.data.data as { fileHash: string }).fileHash },
        },
      });
      const text = await verify([path, '--file', file, '--rpc', `31337=${chainUrl}`]);
      const { hash, fileHash } = certificate.data.data as { hash: string; fileHash: string };
      expect(text.stdout).toContain(`(data.hash ${hash}, data.fileHash ${fileHash})`);
    });

    it('when a forger strips a version 2 certificate to version 1 (no hashVersion) and renames it, then without the file it is not checked (exit 10), never verified, and with the file a mismatch', async () => {
      const content = bytes();
      const certificate = await certify(content);
      const envelope = certificate.data as { data: Record<string, unknown> };
      const {
        hashVersion: _version,
        issuerOrigin: _origin,
        selectiveDisclosure: _disclosure,
        ...kept
      } = envelope.data;
      const forged = {
        ...certificate,
        data: {
          ...envelope,
          data: { ...kept, name: 'Diploma of Medicine', issuer: 'did:user:university' },
        },
      };
      const path = await saved('file-downgraded.json', forged);
      const file = join(dir, 'contract-downgraded.txt');
      await writeFile(file, content);

      const withoutFile = await verify([path, '--rpc', `31337=${chainUrl}`, '--json']);
      const withFile = await verify([path, '--file', file, '--rpc', `31337=${chainUrl}`]);

      expect(withoutFile.code).toBe(EXIT.unchecked);
      expect(JSON.parse(withoutFile.stdout)).toMatchObject({
        verified: false,
        verdict: 'unchecked',
        hash: { version: 1, covered: [] },
      });
      expect(withFile.code).toBe(EXIT.mismatch);
    });

    it('when a changed file is given, then the verdict is a mismatch and the exit code 7', async () => {
      const content = bytes();
      const certificate = await certify(content);
      const file = join(dir, 'contract-changed.txt');
      await writeFile(file, Buffer.concat([content, Buffer.from('one more line\n')]));
      const path = await saved('file-changed.json', certificate);

      const result = await verify([path, '--file', file, '--rpc', `31337=${chainUrl}`]);

      expect(result.code).toBe(EXIT.mismatch);
      expect(result.stdout).toContain('the file does not match the certificate');
      // What the certificate names beside the file's sha256: its fileHash, as sha256sum prints it.
      const named = createHash('sha256').update(content).digest('hex');
      expect(result.stdout).toContain(`the certificate names data.fileHash ${named}`);
    });
  });

  describe('evidences', () => {
    const trackApi = (path: string, init?: RequestInit) =>
      api(path, init, service.running.trackApiUrl);
    const assetWithEvidence = async () => {
      const { data: asset } = await trackApi(
        '/assets',
        json({ assetId: `pallet-${randomUUID()}`, data: { id: 'P-42' }, networkId: 31337 }),
      );
      const trackID = encodeURIComponent(String(asset.trackID));
      // Unique metadata: two evidences of one user in one second with the same metadata share
      // a hash, and a lookup by hash would find both.
      await trackApi(
        `/assets/${trackID}/transactions`,
        json({ metadata: { event: 'shipped', parcel: randomUUID() } }),
      );
      return trackApi(`/assets/${trackID}`, { method: 'GET' });
    };

    it('when an asset JSON is verified, then its assetHash and evidence hash are recomputed and found on chain, each evidence with who added it', async () => {
      const asset = await assetWithEvidence();
      const path = await saved('asset.json', asset);
      const owners = (asset.data as { transactions: { userOwner: string }[] }).transactions.map(
        ({ userOwner }) => userOwner,
      );

      const result = await trustpoint(['verify-evidence', path, '--rpc', `31337=${chainUrl}`], {
        TRUSTPOINT_TRUST_FILE: trustFile,
      });

      expect(result.code).toBe(EXIT.ok);
      expect(result.stdout).toContain('VERIFIED');
      expect(result.stdout).toContain(
        '(asset hash version 2): assetHash recomputed from {hashVersion, trackID, owner, assetId, data}',
      );
      expect(result.stdout).toContain(
        'Asset fields: covered by the assetHash: hashVersion, trackID, owner, assetId, data; checked against the chain: networkId; NOT covered, claims of whoever gave the JSON (unverified): status',
      );
      expect(result.stdout).toContain(
        'Evidence fields: covered by each evidence hash or its key: timestamp, hash, metadata, userOwner; checked against the chain: smartContract, transactionHash; NOT covered, claims of whoever gave the JSON (unverified): status',
      );
      expect(result.stdout).toContain('Added by');
      expect(owners).toHaveLength(2);
      for (const owner of owners) expect(owner).toMatch(/^did:user:/);
      const rows = result.stdout.split('\n').filter((line) => line.includes(owners[0] ?? '-'));
      expect(rows).toHaveLength(2);
      expect(result.stdout).not.toContain('(claim)');
    });

    it('when a version 2 asset is shown with another owner, then its assetHash does not match and the verdict is a mismatch', async () => {
      const asset = await assetWithEvidence();
      (asset.data as { owner: string }).owner = 'did:user:someone-else';
      const path = await saved('asset-other-owner.json', asset);

      const result = await trustpoint(['verify-evidence', path, '--rpc', `31337=${chainUrl}`], {
        TRUSTPOINT_TRUST_FILE: trustFile,
      });

      expect(result.code).toBe(EXIT.mismatch);
      expect(result.stdout).toContain(
        'assetHash is not what {hashVersion, trackID, owner, assetId, data} gives',
      );
    });

    it('when an evidence metadata was changed, then the verdict is a mismatch', async () => {
      const asset = await assetWithEvidence();
      const transactions = (asset.data as { transactions: { metadata: object }[] }).transactions;
      (transactions[0] as { metadata: object }).metadata = { event: 'lost' };
      const path = await saved('asset-changed.json', asset);

      const result = await trustpoint(['verify-evidence', path, '--rpc', `31337=${chainUrl}`], {
        TRUSTPOINT_TRUST_FILE: trustFile,
      });

      expect(result.code).toBe(EXIT.mismatch);
    });

    it("when an evidence hash is given, then the service's answer is checked on chain by hash alone, and said so", async () => {
      const asset = await assetWithEvidence();
      const { hash } = (asset.data.transactions as { hash: string }[])[1] ?? { hash: '' };

      const result = await trustpoint(
        [
          'verify-evidence',
          hash,
          '--track-url',
          new URL(service.running.trackApiUrl).origin,
          '--rpc',
          `31337=${chainUrl}`,
          '--json',
        ],
        { TRUSTPOINT_TOKEN: service.running.token, TRUSTPOINT_TRUST_FILE: trustFile },
      );

      expect(result.code).toBe(EXIT.ok);
      expect(JSON.parse(result.stdout)).toMatchObject({
        verified: true,
        evidences: [
          {
            hash,
            verdict: 'anchored',
            detail: expect.stringContaining('no metadata'),
            // Without the metadata the owner named is the service's word only.
            coverage: {
              covered: ['assetHash', 'timestamp', 'hash'],
              unverified: expect.arrayContaining(['trackID', 'userOwner', 'status']),
            },
          },
        ],
      });
    });

    it("when a forger's tracking API answers another evidence for the hash asked, then nothing is verified (exit 7)", async () => {
      const asset = await assetWithEvidence();
      const [first, second] = asset.data.transactions as { hash: string }[];
      const other = await trackApi(`/evidences/${second?.hash ?? ''}`, { method: 'GET' });
      const forger = createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(other));
      });
      await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));

      try {
        const result = await trustpoint(
          [
            'verify-evidence',
            first?.hash ?? '',
            '--track-url',
            `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}`,
            '--rpc',
            `31337=${chainUrl}`,
          ],
          { TRUSTPOINT_TOKEN: service.running.token, TRUSTPOINT_TRUST_FILE: trustFile },
        );

        expect(result.code).toBe(EXIT.mismatch);
        expect(result.stderr).toContain(
          `the service answered evidence ${second?.hash ?? ''} when asked for ${first?.hash ?? ''}: not the evidence asked for, nothing is verified`,
        );
      } finally {
        await new Promise((resolve) => forger.close(resolve));
      }
    });

    it('when a tracking API answers the asset asked for with a member named twice, then it is refused as the same bytes given as a file are (exit 2), naming the member', async () => {
      // Arrange: the genuine asset, a forger's service answering its data's `id` twice.
      const asset = await assetWithEvidence();
      const text = JSON.stringify(asset).replace('"id":"P-42"', '"id":"P-13","id":"P-42"');
      const forger = createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(text);
      });
      await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
      const file = join(dir, 'asset-duplicate-member.json');
      await writeFile(file, text);

      try {
        // Act
        const fetched = await trustpoint(
          [
            'verify-evidence',
            String(asset.data.trackID),
            '--track-url',
            `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}`,
            '--rpc',
            `31337=${chainUrl}`,
          ],
          { TRUSTPOINT_TOKEN: service.running.token, TRUSTPOINT_TRUST_FILE: trustFile },
        );
        const asFile = await trustpoint(['verify-evidence', file, '--rpc', `31337=${chainUrl}`], {
          TRUSTPOINT_TRUST_FILE: trustFile,
        });

        // Assert
        expect(text).toContain('"id":"P-13","id":"P-42"');
        expect(fetched.code).toBe(EXIT.usage);
        expect(fetched.stderr).toContain('$.data.data.id is given twice');
        expect(fetched.stdout).not.toContain('VERIFIED');
        expect(asFile.code).toBe(fetched.code);
        expect(asFile.stderr).toContain('$.data.data.id is given twice');
      } finally {
        forger.closeAllConnections();
        await new Promise((resolve) => forger.close(resolve));
      }
    });

    it('when a trackID is given with a token, then the asset is read from the tracking API and verified', async () => {
      const asset = await assetWithEvidence();

      const result = await trustpoint(
        [
          'verify-evidence',
          String(asset.data.trackID),
          '--track-url',
          new URL(service.running.trackApiUrl).origin,
          '--rpc',
          `31337=${chainUrl}`,
          '--json',
        ],
        { TRUSTPOINT_TOKEN: service.running.token, TRUSTPOINT_TRUST_FILE: trustFile },
      );

      const verification = JSON.parse(result.stdout) as {
        verified: boolean;
        evidences: { verdict: string; node: string }[];
      };
      expect(result.code).toBe(EXIT.ok);
      expect(verification.verified).toBe(true);
      // The asset's creation evidence and the one added after it.
      expect(verification.evidences).toEqual([
        expect.objectContaining({ verdict: 'anchored', node: chainUrl }),
        expect.objectContaining({ verdict: 'anchored', node: chainUrl }),
      ]);
    });
  });

  it('when verify is asked for help, then it explains the nodes, the exit codes and the evidence command', async () => {
    const help = await trustpoint(['verify', '--help']);
    const top = await trustpoint(['--help']);

    expect(help.stdout).toContain('<networkId>=URL');
    expect(top.stdout).toContain('verify-evidence');
    expect(top.stdout).toContain('REVOKED');
  });
});
