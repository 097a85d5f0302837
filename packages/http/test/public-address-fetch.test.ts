// The fetch a verifier reads an origin's trust document with, when a certificate named that
// origin: against a real DNS server on a local port (dns2) mapping public-looking names to local
// addresses, and real HTTP listeners on them that record every connection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NonPublicAddressError, publicAddressFetch } from '../src/index.js';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';

interface Listener {
  port: number;
  /** Connections accepted, and the Host header of each request. */
  connections: number;
  hosts: string[];
  close(): Promise<void>;
}

async function startListener(address: string, port = 0): Promise<Listener> {
  const seen = { connections: 0, hosts: [] as string[] };
  const server: Server = createServer((request, response) => {
    seen.hosts.push(request.headers.host ?? '');
    if (request.url === '/moved') {
      response.writeHead(302, { location: '/.well-known/trustpoint.json' }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"listener"}');
  });
  server.on('connection', () => {
    seen.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(port, address, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return seen.connections;
    },
    hosts: seen.hosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

describe('publicAddressFetch', () => {
  let dns: LocalDns;
  let local: Listener;
  let other: Listener;
  const documentAt = (host: string, port = local.port) =>
    `http://${host}:${String(port)}/.well-known/trustpoint.json`;

  beforeAll(async () => {
    dns = await startLocalDns();
    local = await startListener('127.0.0.1');
    // The same port on another loopback address: where a rebinding DNS points first.
    other = await startListener('127.0.0.2', local.port);
  });

  afterAll(async () => {
    await Promise.all([dns.close(), local.close(), other.close()]);
  });

  beforeEach(() => {
    dns.addresses.clear();
    dns.questions.length = 0;
  });

  it('when a public-looking name resolves to 127.0.0.1, then nothing is connected to and the refusal says why', async () => {
    dns.addresses.set('certs.example.com', ['127.0.0.1']);
    const guarded = publicAddressFetch({ dnsServers: [dns.server] });
    const before = local.connections;

    const refusal = guarded(documentAt('certs.example.com')).catch((error: unknown) => error);

    const error = await refusal;
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'certs.example.com resolves to 127.0.0.1, a loopback address: only public addresses are fetched',
    );
    expect((error as Error).cause).toBeInstanceOf(NonPublicAddressError);
    expect(local.connections).toBe(before);
    expect(dns.questions).toContain('A certs.example.com');
  });

  it.each([
    ['a private IPv4 address', ['10.1.2.3'], '10.1.2.3, a private address'],
    ['a link-local (metadata) address', ['169.254.169.254'], '169.254.169.254, a link local'],
    ['the unspecified address', ['0.0.0.0'], '0.0.0.0, an unspecified address'],
    ['a multicast address', ['224.0.0.1'], '224.0.0.1, a multicast address'],
    ['IPv6 loopback', ['::1'], '::1, a loopback address'],
    // dns2 writes the hexadecimal form only; the resolver reads it back in the dotted one.
    ['an IPv4-mapped IPv6 loopback', ['::ffff:7f00:1'], '::ffff:127.0.0.1, a loopback address'],
    ['an IPv4-compatible IPv6 address', ['::a9fe:a9fe'], '::169.254.169.254, a link local'],
    ['a unique-local IPv6 address', ['fd00::1'], 'fd00::1, a unique local address'],
    ['a link-local IPv6 address', ['fe80::1'], 'fe80::1, a link local address'],
    ['a public and a loopback address', ['93.184.216.34', '127.0.0.1'], '127.0.0.1, a loopback'],
  ])('when the name resolves to %s, then it is refused', async (_case, addresses, why) => {
    dns.addresses.set('issuer.example.org', addresses);
    const guarded = publicAddressFetch({ dnsServers: [dns.server] });

    const error = await guarded(documentAt('issuer.example.org')).catch(
      (caught: unknown) => caught,
    );

    expect((error as Error).message).toContain(`issuer.example.org resolves to ${why}`);
    expect((error as Error).cause).toBeInstanceOf(NonPublicAddressError);
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1', '127.0.0.1, a loopback address'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]', '::ffff:7f00:1, a loopback address'],
    ['IPv4-compatible IPv6', 'http://[::7f00:1]', '::7f00:1, an IPv4-compatible IPv6 address'],
  ])('when the URL names %s itself, then nothing is connected to', async (_case, base, why) => {
    const guarded = publicAddressFetch({ dnsServers: [dns.server] });
    const before = local.connections;

    const error = await guarded(`${base}:${String(local.port)}/`).catch(
      (caught: unknown) => caught,
    );

    expect((error as Error).message).toBe(`${why}: only public addresses are fetched`);
    expect(local.connections).toBe(before);
  });

  it('when the address is allowed, then the name is resolved on the DNS given and the listener serves it (the refusals above are the address, not the setup)', async () => {
    dns.addresses.set('certs.example.com', ['127.0.0.1']);
    const allowing = publicAddressFetch({
      dnsServers: [dns.server],
      policy: { allowAddresses: ['127.0.0.1'], allowPrivateAddresses: false },
    });
    const before = local.connections;

    const response = await allowing(documentAt('certs.example.com'));

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'listener' });
    expect(local.connections).toBe(before + 1);
    expect(local.hosts.at(-1)).toBe(`certs.example.com:${String(local.port)}`);
  });

  it('when the DNS answers an allowed address, then a refused one (rebinding), then the name is resolved once and the connection goes to the address checked', async () => {
    let answers = 0;
    dns.addresses.set('rebind.example.net', () => {
      answers += 1;
      return answers <= 1 ? ['127.0.0.2'] : ['127.0.0.1'];
    });
    const guarded = publicAddressFetch({
      dnsServers: [dns.server],
      policy: { allowAddresses: ['127.0.0.2'], allowPrivateAddresses: false },
    });
    const [beforeLocal, beforeOther] = [local.connections, other.connections];

    const response = await guarded(documentAt('rebind.example.net'));

    expect(response.status).toBe(200);
    expect(other.connections).toBe(beforeOther + 1);
    expect(local.connections).toBe(beforeLocal);
    expect(dns.questions.filter((question) => question === 'A rebind.example.net')).toHaveLength(1);
  });

  it('when the server redirects, then the redirect is not followed', async () => {
    dns.addresses.set('certs.example.com', ['127.0.0.1']);
    const allowing = publicAddressFetch({
      dnsServers: [dns.server],
      policy: { allowAddresses: ['127.0.0.1'], allowPrivateAddresses: false },
    });
    const before = local.hosts.length;

    const error = await allowing(`http://certs.example.com:${String(local.port)}/moved`, {
      redirect: 'follow',
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TypeError);
    expect(local.hosts.length).toBe(before + 1);
  });

  it('when a URL is one the caller passes through (its own node), then it is fetched as it is, on a loopback address too', async () => {
    const guarded = publicAddressFetch({
      dnsServers: [dns.server],
      passThrough: (url) => url.href === `http://127.0.0.1:${String(local.port)}/node`,
    });
    const before = local.connections;

    const node = await guarded(`http://127.0.0.1:${String(local.port)}/node`);
    const other = await guarded(`http://127.0.0.1:${String(local.port)}/other`).catch(
      (caught: unknown) => caught,
    );

    expect(node.status).toBe(200);
    expect(other).toBeInstanceOf(TypeError);
    expect(local.connections).toBe(before + 1);
  });
});
