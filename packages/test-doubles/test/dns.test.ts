import { Resolver } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDns, type LocalDns } from '../src/dns.js';

describe('the local DNS server', () => {
  let dns: LocalDns;
  let resolver: Resolver;

  beforeAll(async () => {
    dns = await startLocalDns();
    resolver = new Resolver({ timeout: 2_000, tries: 1 });
    resolver.setServers([dns.server]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('when a name holds TXT texts, then a TXT query answers them and the question is logged', async () => {
    // Arrange
    dns.zone.set('_trustpoint.example.org', ['v=1 origin=https://certs.example.org']);

    // Act
    const texts = await resolver.resolveTxt('_trustpoint.example.org');

    // Assert
    expect(texts.map((chunks) => chunks.join(''))).toEqual([
      'v=1 origin=https://certs.example.org',
    ]);
    expect(dns.questions).toContain('TXT _trustpoint.example.org');
  });

  it('when a name holds addresses, then A answers the IPv4 ones, AAAA the IPv6 ones, and a function is asked at each query', async () => {
    // Arrange
    let calls = 0;
    dns.addresses.set('static.example.org', ['127.0.0.2', '::1']);
    dns.addresses.set('rebind.example.org', () => {
      calls += 1;
      return [calls === 1 ? '203.0.113.7' : '127.0.0.1'];
    });

    // Act
    const v4 = await resolver.resolve4('static.example.org');
    const v6 = await resolver.resolve6('static.example.org');
    const first = await resolver.resolve4('rebind.example.org');
    const second = await resolver.resolve4('rebind.example.org');

    // Assert
    expect(v4).toEqual(['127.0.0.2']);
    expect(v6).toEqual(['::1']);
    expect([first, second]).toEqual([['203.0.113.7'], ['127.0.0.1']]);
    expect(dns.questions.filter((question) => question === 'A rebind.example.org')).toHaveLength(2);
  });

  it('when a name is in neither map, then the answer is NXDOMAIN', async () => {
    // Act
    const failure = resolver.resolveTxt('missing.example.org');

    // Assert
    await expect(failure).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('when the DNS-over-HTTPS endpoint is asked for TXT, then it answers as the public resolvers do, quoted', async () => {
    // Arrange
    dns.zone.set('_trustpoint.doh.example.org', ['proof']);

    // Act
    const found = await fetch(`${dns.dohUrl}?name=_trustpoint.doh.example.org&type=TXT`);
    const missing = await fetch(`${dns.dohUrl}?name=nothing.example.org&type=TXT`);

    // Assert
    expect(found.headers.get('access-control-allow-origin')).toBe('*');
    expect(await found.json()).toMatchObject({ Status: 0, Answer: [{ data: '"proof"' }] });
    expect(await missing.json()).toMatchObject({ Status: 3, Answer: [] });
  });
});
