// `trustpoint verify` reads the trust document of an issuing origin it does not trust, to say
// whether it publishes the registry. A forger's probe found that a public-looking name resolving
// to a loopback or private address was still fetched. Here a real DNS server on a local port maps
// the origin a certificate names to 127.0.0.1, where a real listener records every connection.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startCountingListener,
  type CountingListener,
} from '@trustpoint/test-doubles/counting-listener';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import {
  localTrustFile,
  startService,
  trustpoint,
  type RunningService,
} from './support/cli-fixture.js';

describe('trustpoint verify: an issuing origin whose name resolves to a loopback address', () => {
  let dns: LocalDns;
  let listener: CountingListener;
  let service: RunningService;
  let namedOrigin: string;
  let path: string;
  /** A trust file pinning the service's registries through another origin: the named one is untrusted. */
  let sharing: string;

  beforeAll(async () => {
    dns = await startLocalDns();
    listener = await startCountingListener();
    const { port } = listener;
    dns.addresses.set('certs.example.com', ['127.0.0.1']);
    namedOrigin = `https://certs.example.com:${String(port)}`;
    // The service names that origin in its certificates (its public URL), and listens elsewhere.
    service = await startService('pglite', { publicUrl: namedOrigin, dnsServers: [dns.server] });
    const response = await fetch(
      `${service.running.certApiUrl}/certificates?type=content&networkId=31337`,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${service.running.token}`,
        },
        body: JSON.stringify({ name: 'Order', description: '', content: { id: randomUUID() } }),
      },
    );
    const certificate = (await response.json()) as { data: { data: { issuerOrigin: string } } };
    if (certificate.data.data.issuerOrigin !== namedOrigin) {
      throw new Error(`the certificate names ${certificate.data.data.issuerOrigin}`);
    }
    path = join(service.dataDir, 'named-origin.json');
    await writeFile(path, JSON.stringify(certificate));
    sharing = await localTrustFile(service, { origin: 'http://127.0.0.1:1' });
  }, 120_000);

  afterAll(async () => {
    await service.stop();
    await dns.close();
    await listener.close();
  });

  it('when the DNS given maps the name to 127.0.0.1, then the document is not read, the verdict says why, and the listener sees no connection', async () => {
    const asJson = await trustpoint(['verify', path, '--dns-server', dns.server, '--json'], {
      TRUSTPOINT_TRUST_FILE: sharing,
    });
    const text = await trustpoint(['verify', path], {
      TRUSTPOINT_TRUST_FILE: sharing,
      TRUSTPOINT_DNS_SERVERS: dns.server,
    });

    const why = `${namedOrigin}/.well-known/trustpoint.json did not answer (certs.example.com resolves to 127.0.0.1, a loopback address: only public addresses are fetched)`;
    expect(asJson.code).toBe(EXIT.issuerUntrusted);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      verdict: 'issuerUntrusted',
      trustpoints: [{ verdict: 'anchored' }],
      issuer: {
        origin: namedOrigin,
        originTrusted: false,
        registry: { outcome: 'notRead', detail: `not read: ${why}` },
      },
    });
    expect(text.code).toBe(EXIT.issuerUntrusted);
    expect(text.stdout).toContain('resolves to 127.0.0.1, a loopback address');
    // The guard asked the DNS given, and connected nowhere.
    expect(dns.questions).toContain('A certs.example.com');
    expect(listener.connections()).toBe(0);
  });
});
