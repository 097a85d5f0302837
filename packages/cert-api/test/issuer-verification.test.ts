// Who issued a certificate, as the service's own verification says it (GET /trustpoints and POST
// /trustpoints/verification): it trusts its own origin, and reads no other's document.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const OWN_ORIGIN = 'https://certs.example.org';
/** The origin the service had before it moved: certificates issued then still name it. */
const EARLIER_ORIGIN = 'https://certificates.example.net';

describe('who issued it, as the service verifies', () => {
  let api: CertApiFixture;
  let origin = EARLIER_ORIGIN;
  let token: string;
  let earlier: { certID: string; data: Record<string, unknown> };
  let own: { certID: string; data: Record<string, unknown> };
  let earlierJson: object;
  let ownJson: object;

  beforeAll(async () => {
    // The service's trust document (hence the origin it trusts) is built at its first
    // verification, after the first certificate was issued under the earlier origin.
    api = await startCertApi('pglite', { publicOrigin: () => origin });
    ({ token } = await api.user());
    earlier = await api.certify(token, { public: true, name: 'Diploma (earlier origin)' });
    origin = OWN_ORIGIN;
    own = await api.certify(token, { public: true, name: 'Diploma' });
    const read = async (certID: string) =>
      (await request(api.app).get(`/cert/v2/certificates/certID/${certID}`)).body as object;
    earlierJson = await read(earlier.certID);
    ownJson = await read(own.certID);
  });

  afterAll(async () => {
    await api.close();
  });

  it('when a certificate names the service own origin, then both verification routes verify it and name the account and the origin', async () => {
    const stored = await request(api.app).get(`/cert/v2/trustpoints/certID/${own.certID}`);
    const posted = await request(api.app).post('/cert/v2/trustpoints/verification').send(ownJson);

    expect(own.data.issuerOrigin).toBe(OWN_ORIGIN);
    for (const response of [stored, posted]) {
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        verdict: 'verified',
        verified: true,
        issuer: {
          account: own.data.issuer,
          covered: true,
          origin: OWN_ORIGIN,
          originTrusted: true,
          outcome: 'trusted',
          registry: { outcome: 'listed', document: 'pinned' },
        },
      });
    }
  });

  it('when a certificate names another origin, then it is valid with the issuer not trusted, that origin shown, and its document never read', async () => {
    const stored = await request(api.app).get(`/cert/v2/trustpoints/certID/${earlier.certID}`);
    const posted = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .send(earlierJson);

    for (const response of [stored, posted]) {
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        verdict: 'issuerUntrusted',
        verified: false,
        issuer: {
          origin: EARLIER_ORIGIN,
          originTrusted: false,
          outcome: 'untrusted',
          registry: { outcome: 'notRead', detail: 'not read: reading it was not allowed' },
        },
      });
    }
    expect(posted.body.message).toBe('Certificate not verified: issuerUntrusted');
    // The record is genuine: only the issuer is in question.
    expect(posted.body.data.trustpoints[0]).toMatchObject({ verdict: 'anchored' });
  });

  it.skipIf(!existsSync('/usr/bin/pdftotext'))(
    'when the PDFs are made, then each prints who issued it, as the service found it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'trustpoint-issuer-pdf-'));
      const text = async (certID: string) => {
        const response = await request(api.app)
          .get(`/cert/v2/certificates/certID/${certID}/pdf`)
          .buffer(true)
          .parse((res, done) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              done(null, Buffer.concat(chunks));
            });
          });
        const path = join(dir, `${certID.replace(/\W+/g, '-')}.pdf`);
        await writeFile(path, response.body as Buffer);
        const { stdout } = await promisify(execFile)('pdftotext', ['-layout', path, '-']);
        return stdout.replace(/\s+/g, ' ');
      };

      const ownPdf = await text(own.certID);
      const earlierPdf = await text(earlier.certID);

      expect(ownPdf).toContain('VERIFIED');
      expect(ownPdf).toContain(
        `Issued by ${OWN_ORIGIN} (this service), account ${String(own.data.issuer)}`,
      );
      expect(earlierPdf).toContain('ISSUER NOT TRUSTED');
      expect(earlierPdf).toContain(
        `Issued by ${EARLIER_ORIGIN}, account ${String(earlier.data.issuer)}: NOT this service's origin`,
      );
    },
  );
});
