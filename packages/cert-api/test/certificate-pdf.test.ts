// GET /certificates/{type}/{id}/pdf: rendered as a person would see it (pdftoppm, pdftotext), the QR
// code read back from the picture.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { anchoredVersion1Certificate } from '@trustpoint/test-kit/fixtures';
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_CUT_NOTE, PRINTED_CONTENT_MAX_LENGTH } from '../src/certificates/printed-text.js';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';

const run = promisify(execFile);

/** Poppler's tools (apt `poppler-utils`): required under CI, skipped with a message elsewhere. */
function popplerAvailable(): boolean {
  if (existsSync('/usr/bin/pdftoppm')) return true;
  if (process.env.CI)
    throw new Error('CI: the PDF tests need pdftoppm (apt-get install -y poppler-utils)');
  console.warn('Skipping the PDF tests: no pdftoppm (apt-get install -y poppler-utils)');
  return false;
}

/** A binary PPM (P6) as RGBA pixels, what jsQR reads. */
function ppmToRgba(ppm: Buffer): { data: Uint8ClampedArray; width: number; height: number } {
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString('latin1'));
  if (header === null) throw new Error('not a binary PPM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const pixels = ppm.subarray(header[0].length);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i += 1) {
    data[i * 4] = pixels[i * 3] ?? 0;
    data[i * 4 + 1] = pixels[i * 3 + 1] ?? 0;
    data[i * 4 + 2] = pixels[i * 3 + 2] ?? 0;
    data[i * 4 + 3] = 255;
  }
  return { data, width, height };
}

describe.skipIf(!popplerAvailable())('a certificate as a PDF', () => {
  let api: CertApiFixture;
  let server: Server;
  let base: string;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    api = await startCertApi('pglite', { publicOrigin: () => base });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    ({ token } = await api.user());
    dir = await mkdtemp(join(tmpdir(), 'trustpoint-pdf-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await api.close();
  });

  const pdfOf = (certID: string, query = '', headers: Record<string, string> = {}) =>
    fetch(`${base}/cert/v2/certificates/certID/${encodeURIComponent(certID)}/pdf${query}`, {
      headers,
    });

  it('when a public certificate is asked for as a PDF, then it shows its fields and trustpoints, and its QR code opens the web verifier on it', async () => {
    const created = await api.certify(token, {
      name: 'Delivery note 42',
      description: 'Crème brûlée, 12 pieces — 東京',
      public: true,
    });

    const response = await pdfOf(created.certID);
    const pdf = Buffer.from(await response.arrayBuffer());
    const path = join(dir, 'certificate.pdf');
    await writeFile(path, pdf);
    await run('pdftoppm', ['-r', '110', '-f', '1', '-l', '1', path, join(dir, 'page')]);
    const picture = ppmToRgba(await readFile(join(dir, 'page-1.ppm')));
    const qr = jsQR(picture.data, picture.width, picture.height);
    const { stdout: text } = await run('pdftotext', ['-layout', path, '-']);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="certificate-did-trustpoint-certid-[\w-]+\.pdf"$/,
    );
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(qr?.data).toBe(`${base}/cert/v2/verify/#certID=${encodeURIComponent(created.certID)}`);
    expect(text).toContain('Delivery note 42');
    expect(text).toContain('Crème brûlée, 12 pieces — <U+6771><U+4EAC>');
    expect(text).toContain(created.certID);
    expect(text).toContain(created.data.hash);
    expect(text).toContain('Evidence on network 31337');
    expect(text).toContain('Registry contract');
    expect(text).toContain('VERIFIED: every trustpoint is on chain');
    expect(text).toContain('Certified content');
    expect(text).toContain('Hash version 2: what the anchored hash covers');
    expect(text.replace(/\s+/g, ' ')).toContain(
      'Every field shown here: certID, type, name, description, issuer, issuing origin, issue and expiry dates and the content.',
    );
  });

  it('when the certificate was made under hash version 1, then its PDF says the name, description, issuer and dates are not covered by the anchored hash', async () => {
    const owner = await api.user();
    const certID = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, {
      course: 'Physics',
    });

    const response = await pdfOf(certID, '', { authorization: `Bearer ${owner.token}` });
    const path = join(dir, 'certificate-version-1.pdf');
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    const { stdout: text } = await run('pdftotext', ['-layout', path, '-']);

    expect(response.status).toBe(200);
    expect(text).toContain('Hash version 1 (an earlier rule): what the anchored hash covers');
    expect(text.replace(/\s+/g, ' ')).toContain(
      'The anchored hash covers only the certified content. The name, description, issuer and dates shown here are not covered by the anchored hash',
    );
  });

  it('when the certificate is revoked, then its PDF says so with the chain time of the revocation, and shows what it certifies', async () => {
    const created = await api.certify(token, {
      public: true,
      content: { course: 'Chemistry', grade: 0, passed: false },
    });
    const revoked = await fetch(
      `${base}/cert/v2/certificates/certID/${encodeURIComponent(created.certID)}/revoke?networkId=31337`,
      { method: 'PATCH', headers: { Authorization: `Bearer ${token}` } },
    );

    const response = await pdfOf(created.certID);
    const path = join(dir, 'certificate-revoked.pdf');
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    const { stdout: text } = await run('pdftotext', ['-layout', path, '-']);

    expect(revoked.status).toBe(200);
    expect(text).toContain('REVOKED: it matches the chain, and its issuer revoked it');
    expect(text).toMatch(/Revoked\s+\d{4}-\d\d-\d\dT[\d:.]+Z \(chain time, network 31337\)/);
    expect(text).toContain('course: "Chemistry"');
    expect(text).toContain('grade: 0');
    expect(text).toContain('passed: false');
  });

  it('when the request names another Host, then the QR code still opens the configured public origin', async () => {
    const created = await api.certify(token, { public: true });

    // node:http, since fetch sends the URL's host whatever the headers say.
    const { status, body } = await new Promise<{ status: number; body: Buffer }>(
      (resolve, reject) => {
        const url = new URL(
          `${base}/cert/v2/certificates/certID/${encodeURIComponent(created.certID)}/pdf`,
        );
        request(url, { headers: { host: 'evil.example' } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) });
          });
        })
          .on('error', reject)
          .end();
      },
    );
    const path = join(dir, 'certificate-host.pdf');
    await writeFile(path, body);
    await run('pdftoppm', ['-r', '110', '-f', '1', '-l', '1', path, join(dir, 'host')]);
    const picture = ppmToRgba(await readFile(join(dir, 'host-1.ppm')));
    const qr = jsQR(picture.data, picture.width, picture.height);

    expect(status).toBe(200);
    expect(qr?.data).toBe(`${base}/cert/v2/verify/#certID=${encodeURIComponent(created.certID)}`);
  });

  /** The PDF of a certificate anyone may read, written to `dir`, with its text as pdftotext reads it. */
  const readPdf = async (certID: string, file: string) => {
    const response = await pdfOf(certID);
    const path = join(dir, file);
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    const { stdout: text } = await run('pdftotext', ['-layout', path, '-']);
    const { stdout: info } = await run('pdfinfo', [path]);
    const pages = Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
    const title = /^Title:\s+(.*)$/m.exec(info)?.[1];
    return { status: response.status, text, pages, title };
  };

  it('when the certified content holds a 1 MB string, then its PDF prints the start on a few pages and says the rest is in the certificate the QR code opens', async () => {
    const created = await api.certify(token, {
      public: true,
      // Stored as jsonb, whose keys come shorter first: the note follows the transcript.
      content: { transcript: 'lorem ipsum '.repeat(85_000), transcriptNote: 'after' },
    });

    const pdf = await readPdf(created.certID, 'certificate-long.pdf');

    expect(pdf.status).toBe(200);
    // The whole string would print on some 180 pages.
    expect(pdf.pages).toBeLessThanOrEqual(4);
    expect(pdf.text).toContain('transcript: "lorem ipsum lorem ipsum');
    expect(pdf.text.replace(/\s+/g, ' ')).toContain(CONTENT_CUT_NOTE);
    expect(pdf.text.split('lorem').length - 1).toBeLessThan(PRINTED_CONTENT_MAX_LENGTH / 5);
    // Cut inside the first value: the one after it is not printed.
    expect(pdf.text).not.toContain('transcriptNote');
  });

  it('when two names differ only in Cyrillic letters, then their PDFs print them differently, each letter as its code point', async () => {
    const ivan = await api.certify(token, { name: 'Диплом: Иван Петров', public: true });
    const ivanova = await api.certify(token, { name: 'Диплом: Иван Петрова', public: true });

    const first = await readPdf(ivan.certID, 'certificate-ivan.pdf');
    const second = await readPdf(ivanova.certID, 'certificate-ivanova.pdf');
    const nameOf = (text: string) => text.replace(/\s+/g, ' ').split(' Scan the code')[0];

    expect(nameOf(first.text)).not.toBe(nameOf(second.text));
    // Wrapped inside words, beside the QR code: compared without the spaces.
    expect(first.text.replace(/\s+/g, '')).toContain(
      '<U+0414><U+0438><U+043F><U+043B><U+043E><U+043C>:<U+0418><U+0432><U+0430><U+043D>' +
        '<U+041F><U+0435><U+0442><U+0440><U+043E><U+0432>',
    );
    expect(second.text.replace(/\s+/g, '')).toContain(
      '<U+041F><U+0435><U+0442><U+0440><U+043E><U+0432><U+0430>',
    );
    expect(first.text).not.toContain('?');
    expect(first.title).toBe('Certificate Диплом: Иван Петров');
  });

  it('when a name holds a line break and a literal code point form, then the Title is one line and the printed form stays unambiguous', async () => {
    const created = await api.certify(token, { name: 'Diploma\n<U+0418> or И', public: true });

    const pdf = await readPdf(created.certID, 'certificate-line-break.pdf');

    expect(pdf.title).toBe('Certificate Diploma <U+0418> or И');
    expect(pdf.text).toContain('<U+003C>U+0418> or <U+0418>');
  });

  it('when the certificate is private, then a reader without its issuer token gets a 404, and the issuer the PDF', async () => {
    const created = await api.certify(token, { public: false });

    const anonymous = await pdfOf(created.certID);
    const issuer = await pdfOf(created.certID, '', { authorization: `Bearer ${token}` });

    expect(anonymous.status).toBe(404);
    expect(issuer.status).toBe(200);
  });

  it('when the certificate has a PIN, then the PDF needs it as the certificate does', async () => {
    const created = await api.certify(token, { public: true, certificatePin: '4711' });

    const withoutPin = await pdfOf(created.certID);
    const withPin = await pdfOf(created.certID, '?pin=4711');

    expect(withoutPin.status).toBe(403);
    expect(withPin.status).toBe(200);
  });
});
