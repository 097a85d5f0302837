// A certificate naming another issuing origin makes the service call nowhere: not even when the
// origin's name is public-looking and its DNS answers a loopback address where a real listener
// waits (a forger's probe found the Node verifiers fetched such names). The service trusts its own
// origin only and reads no other's trust document; its verifier's fetch reaches its own nodes, and
// any other URL only at a public address.
import { testBackends } from '@trustpoint/test-database';
import {
  startCountingListener,
  type CountingListener,
} from '@trustpoint/test-doubles/counting-listener';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('an issuing origin a certificate names, on %s', (backend) => {
  let dns: LocalDns;
  let listener: CountingListener;
  let api: CertApiFixture;
  let namedOrigin: string;
  let copy: object;
  let certID: string;

  beforeAll(async () => {
    dns = await startLocalDns();
    listener = await startCountingListener();
    const { port } = listener;
    // A public-looking name whose DNS answer is the listener's loopback address.
    dns.addresses.set('certs.example.com', ['127.0.0.1']);
    namedOrigin = `https://certs.example.com:${String(port)}`;
    let origin = namedOrigin;
    api = await startCertApi(backend, { publicOrigin: () => origin, dnsServers: [dns.server] });
    const { token } = await api.user();
    // Issued while the service's origin was the named one; it trusts its own origin from then on.
    ({ certID } = await api.certify(token, { public: true }));
    origin = 'https://own.example.org';
    copy = (await request(api.app).get(`/cert/v2/certificates/certID/${certID}`)).body as object;
  }, 120_000);

  afterAll(async () => {
    await api.close();
    await dns.close();
    await listener.close();
  });

  it('when its copy is posted or its record verified, then the issuer is not trusted, the document not read and why, and nothing connects to the address its name resolves to', async () => {
    const posted = await request(api.app).post('/cert/v2/trustpoints/verification').send(copy);
    const stored = await request(api.app).get(`/cert/v2/trustpoints/certID/${certID}`);

    for (const response of [posted, stored]) {
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        verdict: 'issuerUntrusted',
        issuer: {
          origin: namedOrigin,
          originTrusted: false,
          registry: { outcome: 'notRead', detail: 'not read: reading it was not allowed' },
        },
      });
    }
    expect(listener.connections()).toBe(0);
    expect(
      dns.questions.filter((question) => /^(A|AAAA) .*certs\.example\.com$/.test(question)),
    ).toEqual([]);
  });
});
