// A customer proves a domain with a DNS TXT record, against a real DNS server on a local port
// (what TRUSTPOINT_DNS_SERVERS points the service at); their certificates then name it, and the
// service's own verification looks the record up again.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testBackends } from '@trustpoint/test-database';
import { issuerDomainRecordValue } from '@trustpoint/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { MAX_ISSUER_DOMAINS } from '../src/issuer-domains/issuer-domains.js';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';

const ORIGIN = 'https://certs.example.org';
const DOMAIN = 'university.example';
const RECORD_NAME = `_trustpoint.${DOMAIN}`;

describe.each(testBackends())('issuer domains on %s', (backend) => {
  let api: CertApiFixture;
  let dns: LocalDns;
  let owner: { token: string; id: string };
  let other: { token: string; id: string };

  beforeAll(async () => {
    dns = await startLocalDns();
    api = await startCertApi(backend, { publicOrigin: ORIGIN, dnsServers: [dns.server] });
    owner = await api.user();
    other = await api.user();
  });

  afterAll(async () => {
    await api.close();
    await dns.close();
  });

  const as = (token: string) => ({
    claim: (domain: string) =>
      request(api.app)
        .post('/cert/v2/issuer-domains')
        .set('Authorization', `Bearer ${token}`)
        .send({ domain }),
    list: () =>
      request(api.app).get('/cert/v2/issuer-domains').set('Authorization', `Bearer ${token}`),
    show: (domain: string) =>
      request(api.app)
        .get(`/cert/v2/issuer-domains/${encodeURIComponent(domain)}`)
        .set('Authorization', `Bearer ${token}`),
    check: (domain: string) =>
      request(api.app)
        .post(`/cert/v2/issuer-domains/${encodeURIComponent(domain)}/check`)
        .set('Authorization', `Bearer ${token}`),
    release: (domain: string) =>
      request(api.app)
        .delete(`/cert/v2/issuer-domains/${encodeURIComponent(domain)}`)
        .set('Authorization', `Bearer ${token}`),
  });
  const accountOf = (user: { id: string }) => `did:user:${user.id}`;
  const publish = (...records: { origin: string; account: string }[]) => {
    dns.zone.set(RECORD_NAME, [
      'google-site-verification=abc',
      ...records.map(issuerDomainRecordValue),
    ]);
  };

  it('when a domain is claimed, then the answer is the exact record to publish, kept once, and seen by its claimant only', async () => {
    const first = await as(owner.token).claim('University.Example.');
    const again = await as(owner.token).claim(DOMAIN);
    const byOther = await as(other.token).show(DOMAIN);
    const otherList = await as(other.token).list();
    const list = await as(owner.token).list();

    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      domain: DOMAIN,
      status: 'pending',
      record: {
        name: RECORD_NAME,
        type: 'TXT',
        value: `trustpoint-issuer v=1 origin=${ORIGIN} account=${accountOf(owner)}`,
      },
      provenAt: null,
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(byOther.status).toBe(404);
    expect(otherList.body.data).toEqual([]);
    expect(list.body.data).toEqual([first.body.data]);
  });

  it.each([
    ['an address', '10.0.0.1'],
    ['a URL', 'https://university.example/'],
    ['a single label', 'localhost'],
  ])(
    'when %s is claimed, then it is a 400 on body.domain and nothing is stored',
    async (_, domain) => {
      const response = await as(owner.token).claim(domain);

      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field: 'body.domain' }) as unknown,
      ]);
      expect((await as(owner.token).list()).body.data).toHaveLength(1);
    },
  );

  it('when the record is missing, names another account or another origin, then the check leaves it pending and says why; the right record proves it', async () => {
    await as(owner.token).claim(DOMAIN);
    dns.zone.delete(RECORD_NAME);
    const none = await as(owner.token).check(DOMAIN);
    publish({ origin: ORIGIN, account: accountOf(other) });
    const otherAccount = await as(owner.token).check(DOMAIN);
    publish({ origin: 'https://certs.elsewhere.example', account: accountOf(owner) });
    const otherOrigin = await as(owner.token).check(DOMAIN);
    const beforeProof = await api.certify(owner.token, { public: true });

    publish(
      { origin: ORIGIN, account: accountOf(other) },
      { origin: ORIGIN, account: accountOf(owner) },
    );
    const proven = await as(owner.token).check(DOMAIN);

    expect(none.status).toBe(200);
    expect(none.body.data).toMatchObject({ status: 'pending', check: { outcome: 'unproven' } });
    expect(none.body.message).toContain(`${RECORD_NAME} has no Trustpoint issuer record`);
    expect(otherAccount.body.data.check.detail).toContain('names another account');
    expect(otherOrigin.body.data.check.detail).toContain(
      'names another origin (https://certs.elsewhere.example)',
    );
    expect(otherOrigin.body.data.status).toBe('pending');
    expect((beforeProof.data as { issuerDomain?: string }).issuerDomain).toBeUndefined();
    expect(proven.body.message).toBe('Domain proven: new certificates name it');
    expect(proven.body.data).toMatchObject({
      status: 'proven',
      provenAt: expect.any(Number) as unknown,
      check: { outcome: 'proven' },
    });
  });

  it('when the domain is proven, then new certificates name it and the verification shows it proven, until the record is gone; a copy naming another domain is a mismatch', async () => {
    publish({ origin: ORIGIN, account: accountOf(owner) });
    await as(owner.token).claim(DOMAIN);
    await as(owner.token).check(DOMAIN);
    const created = await api.certify(owner.token, { public: true });
    const copy = (await request(api.app).get(`/cert/v2/certificates/certID/${created.certID}`))
      .body as { data: { data: Record<string, unknown> } };

    const stored = await request(api.app).get(`/cert/v2/trustpoints/certID/${created.certID}`);
    dns.zone.delete(RECORD_NAME);
    const afterRemoval = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .send(copy);
    const renamed = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .send({
        ...copy,
        data: { ...copy.data, data: { ...copy.data.data, issuerDomain: 'other.example' } },
      });

    expect((created.data as { issuerDomain?: string }).issuerDomain).toBe(DOMAIN);
    expect(stored.body.data).toMatchObject({
      verdict: 'verified',
      issuer: {
        origin: ORIGIN,
        account: accountOf(owner),
        identity: { domain: DOMAIN, recordName: RECORD_NAME, outcome: 'proven' },
      },
    });
    // The proof is the DNS's, checked at each verification: a record removed unproves it.
    expect(afterRemoval.body.data).toMatchObject({
      verdict: 'verified',
      issuer: { identity: { outcome: 'unproven' } },
    });
    expect(renamed.body.data.verdict).toBe('mismatch');
  });

  it.skipIf(!existsSync('/usr/bin/pdftotext'))(
    'when the PDF of a certificate of a proven domain is made, then it prints the proven identity',
    async () => {
      publish({ origin: ORIGIN, account: accountOf(owner) });
      await as(owner.token).claim(DOMAIN);
      await as(owner.token).check(DOMAIN);
      const created = await api.certify(owner.token, { public: true });
      const pdf = await request(api.app)
        .get(`/cert/v2/certificates/certID/${created.certID}/pdf`)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            done(null, Buffer.concat(chunks));
          });
        });
      const path = join(await mkdtemp(join(tmpdir(), 'trustpoint-domain-pdf-')), 'c.pdf');
      await writeFile(path, pdf.body as Buffer);
      const { stdout } = await promisify(execFile)('pdftotext', ['-layout', path, '-']);

      expect(stdout.replace(/\s+/g, ' ')).toContain(`proven identity ${DOMAIN}`);
    },
  );

  it('when a claim is released, then later certificates name no domain, and a second release is a 404', async () => {
    publish({ origin: ORIGIN, account: accountOf(owner) });
    await as(owner.token).claim(DOMAIN);
    await as(owner.token).check(DOMAIN);

    const released = await as(owner.token).release(DOMAIN);
    const again = await as(owner.token).release(DOMAIN);
    const after = await api.certify(owner.token, { public: true });

    expect(released.status).toBe(200);
    expect(again.status).toBe(404);
    expect((after.data as { issuerDomain?: string }).issuerDomain).toBeUndefined();
  });

  it('when a user holds as many claims as allowed, then one more is a 400 naming the limit and nothing is claimed; a claim held is answered again', async () => {
    const user = await api.user();
    const held = Array.from(
      { length: MAX_ISSUER_DOMAINS },
      (_, index) => `d${String(index)}.limit.example`,
    );
    const claims = await Promise.all(held.map((domain) => as(user.token).claim(domain)));

    const over = await as(user.token).claim('one-more.limit.example');
    const again = await as(user.token).claim(held[0] ?? '');
    const listed = await as(user.token).list();

    expect(claims.map((response) => response.status)).toEqual(held.map(() => 201));
    expect(over.status).toBe(400);
    expect((over.body as { errors: unknown[] }).errors).toEqual([
      {
        field: 'body.domain',
        error: `A user claims at most ${String(MAX_ISSUER_DOMAINS)} domains; withdraw one first`,
      },
    ]);
    expect(again.status).toBe(200);
    expect((listed.body as { data: unknown[] }).data).toHaveLength(MAX_ISSUER_DOMAINS);
  });

  it('when no token is given, then every route is a 401', async () => {
    const responses = await Promise.all([
      request(api.app).post('/cert/v2/issuer-domains').send({ domain: DOMAIN }),
      request(api.app).get('/cert/v2/issuer-domains'),
      request(api.app).post(`/cert/v2/issuer-domains/${DOMAIN}/check`),
      request(api.app).delete(`/cert/v2/issuer-domains/${DOMAIN}`),
    ]);

    expect(responses.map((response) => response.status)).toEqual([401, 401, 401, 401]);
  });
});
