// The web verifier, end to end: served by the API, run in headless Chromium, checking certificates
// made by the API against the real chain node, as a person would use it.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closedPort } from '@trustpoint/test-doubles/closed-port';
import { startLocalDns, type LocalDns } from '@trustpoint/test-doubles/dns';
import { deployForgedRegistry } from '@trustpoint/test-doubles/forged-registry';
import { anchoredVersion1Certificate } from '@trustpoint/test-kit/fixtures';
import { withholdCertificateFields } from '@trustpoint/verifier';
import { WEB_VERIFIER_STANDALONE_FILE } from '@trustpoint/web-verifier';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { chromiumAvailable, launchChromium } from './support/headless-chromium.js';

/** The page's local storage, as the tests use it (this package is typed without the DOM). */
interface PageStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const SCREENSHOTS = join(__dirname, '..', 'screenshots');
const EXPLORER = 'https://explorer.example';

/** A certificate answer as the API gives it: the certificate under `data`, its fields under `data.data`. */
interface CertificateAnswer {
  data: { certID: string; data: Record<string, unknown> };
}

/** A copy of a certificate answer with some shown fields changed, the rest as issued. */
const changed = (
  answer: CertificateAnswer,
  fields: Record<string, unknown>,
): CertificateAnswer => ({
  ...answer,
  data: { ...answer.data, data: { ...answer.data.data, ...fields } },
});

/** A copy of a certificate answer withholding content fields, as a holder makes it. */
const withheld = (answer: CertificateAnswer, paths: (string | number)[][]): CertificateAnswer => ({
  ...answer,
  data: withholdCertificateFields(answer.data, paths),
});

/**
 * A service of its own publishing a trust document (what the page fetches when a user trusts an
 * origin): the document can be changed later, as a service's may be.
 */
async function startTrustDocumentServer(document: (origin: string) => object) {
  let current = document;
  const http = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url !== '/.well-known/trustpoint.json') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(current(origin)));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${String((http.address() as AddressInfo).port)}`;
  return {
    origin,
    serve(next: (origin: string) => object) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => {
          resolve();
        });
        http.closeAllConnections();
      }),
  };
}

describe.skipIf(!chromiumAvailable())('the web verifier in a browser', () => {
  let api: CertApiFixture;
  let server: Server;
  let base: string;
  let browser: Browser;
  let token: string;
  let dir: string;

  // A real DNS server on a local port (the service checks domain proofs there) and its
  // DNS-over-HTTPS endpoint, which stands in for the public resolver the pages use by default.
  let dns: LocalDns;

  beforeAll(async () => {
    dns = await startLocalDns();
    api = await startCertApi('pglite', {
      explorerUrl: EXPLORER,
      publicOrigin: () => base,
      dnsServers: [dns.server],
    });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    ({ token } = await api.user());
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), 'trustpoint-web-verifier-'));
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser.close();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await api.close();
    await dns.close();
  });

  const call = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    const response = await fetch(`${base}/cert/v2${path}`, { ...init, headers });
    const body = (await response.json()) as { data: { certID: string } };
    if (!response.ok)
      throw new Error(`${path}: ${String(response.status)} ${JSON.stringify(body)}`);
    return body;
  };

  const certifyFile = async (bytes: Uint8Array, name: string) => {
    const form = new FormData();
    form.append('body', JSON.stringify({ name, description: 'web verifier test', public: true }));
    form.append('fileInput', new Blob([bytes], { type: 'text/plain' }), `${name}.txt`);
    return call('/certificates?type=file&networkId=31337', { method: 'POST', body: form });
  };

  const certifyContent = (fields: Record<string, unknown> = {}) =>
    call('/certificates?type=content&networkId=31337', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Order',
        description: 'web verifier test',
        public: true,
        content: { order: randomUUID() },
        ...fields,
      }),
    });

  const saved = async (name: string, content: string | Uint8Array) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  /** Opens the page the API serves, in a fresh context (no remembered nodes or services). */
  const openPage = async (hash = '', viewport = { width: 1100, height: 900 }): Promise<Page> => {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${base}/cert/v2/verify/${hash}`);
    await page.locator('body[data-state]').waitFor();
    return page;
  };

  /** Clicks a button that verifies, and waits for the verification it starts to end. */
  const verifyBy = async (page: Page, selector = '#verify') => {
    await page.click(selector);
    await page.locator('body[data-state="done"]').waitFor({ timeout: 60_000 });
  };

  const verdictOf = async (page: Page) => {
    const verdict = page.locator('#verdict[data-verdict]');
    await verdict.waitFor({ timeout: 60_000 });
    return {
      verdict: await verdict.getAttribute('data-verdict'),
      text: await verdict.textContent(),
      rows: (
        await Promise.all(
          (await page.locator('#trustpoints tbody tr').all()).map((row) =>
            row.getAttribute('data-verdict'),
          ),
        )
      ).filter((verdict) => !verdict?.startsWith('status')),
      /** The revocation status rows: one per network holding an Evidence, read from the certID. */
      status: (
        await Promise.all(
          (await page.locator('#trustpoints tbody tr').all()).map((row) =>
            row.getAttribute('data-verdict'),
          ),
        )
      ).filter((verdict) => verdict?.startsWith('status')),
    };
  };

  /** The computed background colour of an element, as the user sees it. */
  const backgroundOf = (page: Page, selector: string) =>
    page.locator(selector).evaluate(
      (node) =>
        (
          globalThis as unknown as {
            getComputedStyle(node: unknown): { backgroundColor: string };
          }
        ).getComputedStyle(node).backgroundColor,
    );

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('when a file and its certificate JSON are given, then the browser hashes the file, reads the chain of its own instance and says verified, with explorer links', async () => {
    const bytes = new TextEncoder().encode(`my contract, signed ${randomUUID()}\n`);
    const certificate = await certifyFile(bytes, 'contract');
    const page = await openPage();
    // The instance's own chain, on whatever port it runs: never a guessed 8545.
    await expect(page.inputValue('#rpc-urls')).resolves.toBe(`31337=${api.chain.url}`);
    await page.setInputFiles(
      '#certificate-file',
      await saved('contract.json', JSON.stringify(certificate)),
    );
    await page.setInputFiles('#certified-file', await saved('contract.txt', bytes));

    await page.click('#verify');
    const result = await verdictOf(page);
    await screenshot(page, 'valid-file');

    expect(result.verdict).toBe('verified');
    expect(result.rows).toEqual(['anchored']);
    // Who issued it, first: this service's origin, which the served page trusts.
    await expect(page.locator('#issuer').getAttribute('data-issuer')).resolves.toBe('trusted');
    await expect(page.locator('#issuer .issuer-origin').textContent()).resolves.toBe(base);
    await expect(page.locator('#issuer').textContent()).resolves.toContain(
      'A service you trust, and the certificate is recorded in a registry it publishes.',
    );
    await expect(page.locator('#summary').textContent()).resolves.toContain(
      'data.hash recomputed by the version 2 rule over every shown field, data.fileHash from the file',
    );
    const transaction = await page
      .locator('#trustpoints a', { hasText: 'transaction' })
      .getAttribute('href');
    expect(transaction).toMatch(new RegExp(`^${EXPLORER}/tx/0x[0-9a-f]{64}$`));
    await expect(page.locator('#trustpoints tbody').textContent()).resolves.toContain(
      `Answered by ${api.chain.url}`,
    );
  });

  it('when the file was changed, then the verdict is a mismatch', async () => {
    const certificate = await certifyFile(new TextEncoder().encode(`v1 ${randomUUID()}`), 'deed');
    const page = await openPage();
    await page.setInputFiles(
      '#certificate-file',
      await saved('deed.json', JSON.stringify(certificate)),
    );
    await page.setInputFiles('#certified-file', await saved('deed-changed.txt', 'v2, changed'));

    await page.click('#verify');
    const result = await verdictOf(page);
    await screenshot(page, 'tampered-file');

    expect(result.verdict).toBe('mismatch');
    expect(result.text).toContain('Mismatch');
    await expect(page.locator('#summary').textContent()).resolves.toContain(
      'the file does not match the certificate',
    );
  });

  it('when a link names a revoked certificate by certID, then the page reads it from the service and says revoked', async () => {
    const { data } = await certifyContent();
    await call(`/certificates/certID/${encodeURIComponent(data.certID)}/revoke?networkId=31337`, {
      method: 'PATCH',
    });
    const link = new URLSearchParams({ certID: data.certID });

    const page = await openPage(`#${link.toString()}`);
    const result = await verdictOf(page);
    await screenshot(page, 'revoked');

    expect(result.verdict).toBe('revoked');
    expect(result.rows).toEqual(['anchored', 'revoked']);
  });

  it("when a link's service answers another genuine certificate for the certID it names, then the page verifies nothing and says it is not the certificate asked for", async () => {
    // A forger's service: it answers its own look-alike (genuine, on chain) whatever is asked.
    const asked = await certifyContent();
    const lookAlike = await certifyContent({ name: 'Order (look-alike)' });
    const forger = createServer((_req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(lookAlike));
    });
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    const forgerApi = `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}/cert/v2/`;

    try {
      const page = await openPage(
        `#${new URLSearchParams({ certID: asked.data.certID, service: forgerApi }).toString()}`,
      );
      await page.locator('#error:not([hidden])').waitFor({ timeout: 60_000 });

      await expect(page.locator('#error').textContent()).resolves.toContain(
        `The service answered certificate ${lookAlike.data.certID} when asked for ${asked.data.certID}`,
      );
      await expect(page.locator('#verdict[data-verdict]').count()).resolves.toBe(0);
    } finally {
      forger.closeAllConnections();
      await new Promise((resolve) => forger.close(resolve));
    }
  });

  it("when a link's service answers the certificate it names with a member named twice, then the page verifies nothing and refuses it as it refuses that file", async () => {
    // Arrange: the genuine certificate; a forger's service gives `name` twice, the genuine value
    // last (what JSON.parse keeps: it would verify while other readers show the first).
    const asked = await certifyContent();
    const text = JSON.stringify(asked).replace(
      '"name":"Order"',
      '"name":"Forged Mallory","name":"Order"',
    );
    const forger = createServer((_req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Content-Type', 'application/json');
      res.end(text);
    });
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    const forgerApi = `http://127.0.0.1:${String((forger.address() as AddressInfo).port)}/cert/v2/`;

    try {
      // Act
      const page = await openPage(
        `#${new URLSearchParams({ certID: asked.data.certID, service: forgerApi }).toString()}`,
      );
      await page.locator('#error:not([hidden])').waitFor({ timeout: 60_000 });

      // Assert
      expect(text).toContain('"name":"Forged Mallory","name":"Order"');
      await expect(page.locator('#error').textContent()).resolves.toContain(
        'The certificate the service answered is refused: $.data.data.name is given twice',
      );
      await expect(page.locator('#verdict[data-verdict]').count()).resolves.toBe(0);
    } finally {
      forger.closeAllConnections();
      await new Promise((resolve) => forger.close(resolve));
    }
  });

  it('when the JSON was saved at issuance and the certificate revoked later, then the page finds it revoked from its certID, with the chain time', async () => {
    const certificate = await certifyContent();
    const path = await saved('saved-at-issuance.json', JSON.stringify(certificate));
    const before = await openPage();
    await before.setInputFiles('#certificate-file', path);
    await before.click('#verify');
    const fresh = await verdictOf(before);
    await call(
      `/certificates/certID/${encodeURIComponent(certificate.data.certID)}/revoke?networkId=31337`,
      { method: 'PATCH' },
    );

    const page = await openPage();
    await page.setInputFiles('#certificate-file', path);
    await page.click('#verify');
    const result = await verdictOf(page);
    await screenshot(page, 'revoked-saved-copy');

    expect(fresh).toMatchObject({ verdict: 'verified', status: ['statusNotRevoked'] });
    expect(result).toMatchObject({
      verdict: 'revoked',
      rows: ['anchored'],
      status: ['statusRevoked'],
    });
    expect(result.text).toContain('Revoked');
    await expect(page.locator('#summary').textContent()).resolves.toMatch(
      /Revoked\s*\d{4}-\d\d-\d\dT[\d:.]+Z \(chain time, network 31337\)/,
    );
  });

  it('when a link names a qualified-signed certificate, then the page checks the JWS with the service key set and says signed', async () => {
    const qualified = await api.user({ qualified: true });
    const issuer = token;
    token = qualified.token;
    try {
      const { data } = await certifyContent();
      await call(
        `/certificates/certID/${encodeURIComponent(data.certID)}/signature?networkId=31337`,
        {
          method: 'POST',
        },
      );
      const link = new URLSearchParams({ certID: data.certID });

      const page = await openPage(`#${link.toString()}`);
      const result = await verdictOf(page);
      await screenshot(page, 'signed');

      expect(result.verdict).toBe('verified');
      expect(result.rows).toEqual(['anchored', 'signed']);
    } finally {
      token = issuer;
    }
  });

  it('when the only node is down, then the trustpoint is unreachable and nothing is claimed', async () => {
    const { data } = await certifyContent();
    const down = `http://127.0.0.1:${String(await closedPort())}`;
    const page = await openPage();
    await page.fill('#cert-id', data.certID);
    await page.fill('#rpc-urls', `31337=${down}`);

    await page.click('#verify');
    const result = await verdictOf(page);
    await screenshot(page, 'node-down');

    expect(result.verdict).toBe('unchecked');
    expect(result.rows).toEqual(['unreachable']);
    await expect(page.locator('#trustpoints tbody').textContent()).resolves.toContain(
      `${down} failed`,
    );
  });

  /** The summary's value of a term, as the page shows it. */
  const summaryValue = (page: Page, term: string) =>
    page
      .locator('#summary dt', { hasText: term })
      .locator('xpath=following-sibling::dd[1]')
      .textContent();

  /** Verifies a certificate JSON given as a file on the page, and returns the verdict. */
  const verifyJson = async (page: Page, name: string, json: unknown) => {
    await page.setInputFiles('#certificate-file', await saved(name, JSON.stringify(json)));
    await verifyBy(page);
    return verdictOf(page);
  };

  it('when a new certificate is renamed, re-described, re-issued or re-dated in a copy, then each copy is a mismatch, as the hash covers every shown field', async () => {
    const certificate = (await certifyContent()) as unknown as CertificateAnswer;
    const issuedOn = certificate.data.data.issuedOn as number;
    const page = await openPage();

    const genuine = await verifyJson(page, 'genuine.json', certificate);
    const coverage = await page.locator('#coverage').textContent();
    const renamed = await verifyJson(
      page,
      'renamed.json',
      changed(certificate, { name: 'Forged' }),
    );
    const renamedDetail = await summaryValue(page, 'Hash check');
    const renamedIssuer = await page.locator('#issuer').textContent();
    const renamedTrustButtons = await page.locator('#issuer button').count();
    const redated = await verifyJson(
      page,
      're-dated.json',
      changed(certificate, { issuedOn: issuedOn - 86_400_000 }),
    );
    await screenshot(page, 'redated-copy');
    const redescribed = await verifyJson(
      page,
      're-described.json',
      changed(certificate, { description: 'Forged description' }),
    );
    const reissued = await verifyJson(
      page,
      're-issued.json',
      changed(certificate, { issuer: 'did:user:university-x' }),
    );

    expect(redescribed.verdict).toBe('mismatch');
    expect(reissued.verdict).toBe('mismatch');
    expect(genuine.verdict).toBe('verified');
    expect(coverage).toContain('Hash version 2: the anchored hash covers every field shown');
    expect(coverage).toContain('name');
    expect(coverage).toContain('issuedOn');
    expect(renamed.verdict).toBe('mismatch');
    expect(renamedDetail).toContain('data.hash is not the version 2 root of the fields shown');
    // The origin it names is the one trusted, but nothing of this copy holds: the box says so,
    // with no verdict of its own on the issuer and nothing to trust.
    expect(renamedIssuer).toContain('(a claim: this copy does not match its hash)');
    expect(renamedIssuer).toContain('no record of this copy holds');
    expect(renamedIssuer).not.toContain('Issuer not trusted');
    expect(renamedIssuer).not.toContain('valid on chain');
    expect(renamedTrustButtons).toBe(0);
    expect(redated.verdict).toBe('mismatch');
    expect(redated.text).toContain('Mismatch');
  });

  it('when a copy withholds content fields, then it verifies and the page lists what was withheld', async () => {
    const certificate = (await certifyContent({
      content: { student: { name: 'Ada', dateOfBirth: '1815-12-10' }, grades: [5, 6, 4] },
    })) as unknown as CertificateAnswer;
    const copy = withheld(certificate, [
      ['content', 'student', 'dateOfBirth'],
      ['content', 'grades', 1],
    ]);
    const page = await openPage();

    const result = await verifyJson(page, 'withheld.json', copy);
    await screenshot(page, 'withheld-copy');

    expect(result.verdict).toBe('verified');
    await expect(summaryValue(page, 'Withheld by the holder')).resolves.toBe(
      'a member of content.student; content.grades[1]',
    );
    await expect(page.locator('#coverage').textContent()).resolves.toContain(
      'The holder withheld 2 content field(s)',
    );
    const content = await page.locator('#content').textContent();
    expect(content).not.toContain('1815-12-10');
    expect(content).not.toContain('6');
    await expect(page.locator('#content tr[data-coverage="withheld"]').count()).resolves.toBe(2);
    // Every element at the position it was issued at: 4 stays third, never shown as grades[1].
    const heads = await page.locator('#content tr th').allTextContents();
    const cells = await page.locator('#content tr td').allTextContents();
    const gradeRows = heads.map((head, index) => [head, cells[index]]);
    expect(gradeRows.filter(([path]) => path?.startsWith('grades'))).toEqual([
      ['grades[0]', '5'],
      ['grades[1]', 'withheld by the holder'],
      ['grades[2]', '4'],
    ]);
  });

  it('when the holder ticks content fields and downloads the copy, then it withholds them and verifies; fields that cannot be withheld have no box', async () => {
    const certificate = (await certifyContent({
      content: { student: { name: 'Ada', dateOfBirth: '1815-12-10' }, grade: 'A' },
    })) as unknown as CertificateAnswer;
    const page = await openPage();
    await verifyJson(page, 'to-withhold.json', certificate);
    const boxes = await page.locator('#withhold-fields label').allTextContents();

    await page.click('#withhold-fields label:has-text("content.student.dateOfBirth")');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#withhold-download'),
    ]);
    const path = join(dir, 'downloaded-withheld.json');
    await download.saveAs(path);
    const copy = JSON.parse(await readFile(path, 'utf8')) as CertificateAnswer;
    const result = await verifyJson(page, 'downloaded-withheld.json', copy);
    await screenshot(page, 'withheld-download');

    expect(boxes.map((text) => text.split(' ')[0])).toEqual(
      expect.arrayContaining([
        'content.student',
        'content.student.name',
        'content.student.dateOfBirth',
        'content.grade',
      ]),
    );
    expect(boxes.every((text) => text.startsWith('content.'))).toBe(true);
    expect(download.suggestedFilename()).toBe('certificate-withheld.json');
    expect(copy.data.data.content).toEqual({ student: { name: 'Ada' }, grade: 'A' });
    expect(copy.data.data.hash).toBe(certificate.data.data.hash);
    expect(result.verdict).toBe('verified');
    await expect(summaryValue(page, 'Withheld by the holder')).resolves.toBe(
      'a member of content.student',
    );
  });

  it('when a version 1 certificate is verified, then it is verified with its coverage stated, and the name, description, issuer and dates it shows marked as unverified claims', async () => {
    const owner = await api.user();
    const certID = await anchoredVersion1Certificate(api.db.knex, api.engine, owner.id, {
      student: 'Ada',
      grade: 'A',
    });
    const response = await fetch(
      `${base}/cert/v2/certificates/certID/${encodeURIComponent(certID)}`,
      {
        headers: { Authorization: `Bearer ${owner.token}` },
      },
    );
    const certificate = (await response.json()) as CertificateAnswer;
    const page = await openPage();

    const result = await verifyJson(page, 'version-1.json', certificate);
    await screenshot(page, 'version-1');

    expect(result.verdict).toBe('verified');
    const coverage = await page.locator('#coverage').textContent();
    expect(coverage).toContain(
      'Hash version 1 (an earlier rule): the anchored hash covers only the content.',
    );
    expect(coverage).toContain(
      'The name, the description, the issuer and the issue date shown are NOT covered: unverified claims of whoever gave you this JSON.',
    );
    await expect(summaryValue(page, 'Covered by the hash (version 1)')).resolves.toBe('content');
    await expect(
      summaryValue(page, 'NOT covered, claims of whoever gave the JSON (unverified)'),
    ).resolves.toBe('name, description, issuer, issuedOn');
    const claims = await page.locator('#summary dd[data-coverage="claim"]').allTextContents();
    expect(claims).toEqual([
      'Diploma unverified claim',
      'Made under version 1 unverified claim',
      `did:user:${owner.id} unverified claim`,
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z unverified claim$/),
    ]);
    await expect(page.locator('#content tr[data-coverage="claim"]').count()).resolves.toBe(0);
    await expect(page.locator('#withhold').isHidden()).resolves.toBe(true);
  });

  it('when the standalone file is opened from disk on a certID link, then it proposes the link node, says untrusted until the user trusts the service, then verified; a later change of that service is reported', async () => {
    const { data } = await certifyContent();
    const link = new URLSearchParams({
      certID: data.certID,
      service: `${base}/cert/v2/`,
      rpc: `31337=${api.chain.url}`,
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const standalone = pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString();

    await page.goto(`${standalone}#${link.toString()}`);
    await page.locator('body[data-state="ready"]').waitFor();
    await expect(page.inputValue('#rpc-urls')).resolves.toBe('');
    await page.click('#node-proposals button:has-text("Use this node")');
    await verifyBy(page);
    const untrusted = await verdictOf(page);
    await screenshot(page, 'standalone-untrusted');
    await page.click(`#how-to-trust button:has-text("Trust ${base}")`);
    await page.locator('#verdict[data-verdict="verified"]').waitFor({ timeout: 60_000 });
    const verified = await verdictOf(page);
    await screenshot(page, 'standalone-from-disk');

    expect(untrusted.verdict).toBe('untrusted');
    expect(untrusted.rows).toEqual(['untrusted']);
    await expect(page.locator('#trusted-list').textContent()).resolves.toContain(base);
    expect(verified.rows).toEqual(['anchored']);
    await expect(page.locator('#trustpoints tbody').textContent()).resolves.toContain(
      `Trusted through ${base}`,
    );

    // Opened from disk again: nothing was remembered, and the page says so.
    const again = await context.newPage();
    await again.goto(standalone);
    await again.locator('body[data-state="ready"]').waitFor();

    await expect(again.locator('#trusted-list').textContent()).resolves.not.toContain(base);
    await expect(again.inputValue('#rpc-urls')).resolves.toBe('');
    await expect(again.locator('#not-remembered').isVisible()).resolves.toBe(true);
  });

  it("when another HTML file opened from disk plants a trust document and nodes in the browser's storage, then the standalone page reads none of them and trusts nothing it did not give", async () => {
    // Arrange: every file:// page shares one storage; a forger's file writes the page's keys.
    const certificate = (await certifyContent()) as unknown as CertificateAnswer;
    const published = (await (await fetch(`${base}/.well-known/trustpoint.json`)).json()) as object;
    const planted = await saved(
      'planted.html',
      `<!doctype html><script>
        localStorage.setItem('trustpoint-verifier:trusted-origins', ${JSON.stringify(
          JSON.stringify({
            origins: [{ document: published, pinnedAt: '2026-01-01T00:00:00.000Z' }],
          }),
        )});
        localStorage.setItem('trustpoint-verifier:rpc-urls', ${JSON.stringify(`31337=${api.chain.url}`)});
        document.title = 'planted';
      </script>`,
    );
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const forger = await context.newPage();
    await forger.goto(pathToFileURL(planted).toString());
    await forger.waitForFunction(
      () => (globalThis as unknown as { document: { title: string } }).document.title === 'planted',
    );
    const plantedThere = await forger.evaluate(() =>
      (globalThis as unknown as { localStorage: PageStorage }).localStorage.getItem(
        'trustpoint-verifier:rpc-urls',
      ),
    );

    // Act
    const page = await context.newPage();
    await page.goto(pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString());
    await page.locator('body[data-state="ready"]').waitFor();
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);
    const result = await verifyJson(page, 'planted-trust.json', certificate);

    // Assert: the storage did hold the forger's entries; the page used none of them.
    expect(plantedThere).toBe(`31337=${api.chain.url}`);
    await expect(page.locator('#trusted-list').textContent()).resolves.not.toContain(base);
    expect(result.verdict).toBe('untrusted');
  });

  it('when a service the user trusts on the served page later publishes another document, then the page reports the change and does not take it', async () => {
    // Arrange: a service sharing this one's registries, trusted on the served page.
    const published = (await (await fetch(`${base}/.well-known/trustpoint.json`)).json()) as {
      networks: { registries: { address: string }[] }[];
    };
    const other = await startTrustDocumentServer((origin) => ({ ...published, origin }));
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/cert/v2/verify/`);
      await page.locator('body[data-state="ready"]').waitFor();
      await page.fill('#trust-origin', other.origin);
      await page.click('#trust-add');
      await page.locator('#trusted-list', { hasText: other.origin }).waitFor();

      // Act: its document changes (another registry), and the page is opened again.
      other.serve((origin) => ({
        ...published,
        origin,
        networks: published.networks.map((network) => ({
          ...network,
          registries: network.registries.map((registry) => ({
            ...registry,
            address: `0x${'ab'.repeat(20)}`,
          })),
        })),
      }));
      const later = await context.newPage();
      await later.goto(`${base}/cert/v2/verify/`);
      await later.locator('#trusted-list [data-changed="true"]').waitFor({ timeout: 30_000 });

      // Assert
      await expect(later.locator('#trusted-list').textContent()).resolves.toContain('CHANGED');
      await expect(later.locator('#not-remembered').isVisible()).resolves.toBe(false);
    } finally {
      await other.close();
    }
  });

  it('when the standalone file is given a certificate, then the holder downloads a copy withholding a ticked field, and that copy verifies there with it listed', async () => {
    const certificate = (await certifyContent({
      content: { patient: 'P-1', dateOfBirth: '1990-01-01' },
    })) as unknown as CertificateAnswer;
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString());
    await page.locator('body[data-state="ready"]').waitFor();
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);
    await page.fill('#trust-origin', base);
    await page.click('#trust-add');
    await page.locator('#trusted-list', { hasText: base }).waitFor();

    const original = await verifyJson(page, 'standalone-original.json', certificate);
    await page.click('#withhold-fields label:has-text("content.dateOfBirth")');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#withhold-download'),
    ]);
    const path = join(dir, 'standalone-withheld.json');
    await download.saveAs(path);
    await page.setInputFiles('#certificate-file', path);
    await verifyBy(page);
    const copy = await verdictOf(page);
    await screenshot(page, 'standalone-withheld');

    expect(original.verdict).toBe('verified');
    expect(copy.verdict).toBe('verified');
    await expect(summaryValue(page, 'Withheld by the holder')).resolves.toBe('a member of content');
    await expect(page.locator('#content').textContent()).resolves.not.toContain('1990-01-01');
  });

  it("when the standalone file is given a JSON saved at issuance of a certificate revoked since, then it finds the revocation from the certID in the trusted service's status registry; a renamed copy is a mismatch", async () => {
    const certificate = (await certifyContent()) as unknown as CertificateAnswer;
    await call(
      `/certificates/certID/${encodeURIComponent(certificate.data.certID)}/revoke?networkId=31337`,
      { method: 'PATCH' },
    );
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString());
    await page.locator('body[data-state="ready"]').waitFor();
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);
    await page.fill('#trust-origin', base);
    await page.click('#trust-add');
    await page.locator('#trusted-list', { hasText: base }).waitFor();

    const result = await verifyJson(page, 'standalone-saved-then-revoked.json', certificate);
    await screenshot(page, 'standalone-revoked-saved-copy');
    const renamed = await verifyJson(
      page,
      'standalone-renamed.json',
      changed(certificate, { name: 'Forged' }),
    );

    expect(renamed.verdict).toBe('mismatch');
    expect(result).toMatchObject({
      verdict: 'revoked',
      rows: ['anchored'],
      status: ['statusRevoked'],
    });
  });

  it('when the standalone file trusts the registries through another origin than the one the certificate names, then it is valid with the issuer not trusted, that origin shown in its own colour and never contacted, until the user trusts it', async () => {
    const certificate = (await certifyContent()) as unknown as CertificateAnswer;
    const published = (await (await fetch(`${base}/.well-known/trustpoint.json`)).json()) as {
      origin: string;
    };
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const standalone = pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString();
    await page.goto(standalone);
    await page.locator('body[data-state="ready"]').waitFor();
    // A service sharing this one's registries is trusted: its document, its origin.
    const other = await startTrustDocumentServer((origin) => ({ ...published, origin }));
    await page.fill('#trust-origin', other.origin);
    await page.click('#trust-add');
    await page.locator('#trusted-list', { hasText: other.origin }).waitFor();
    await other.close();
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);

    const untrusted = await verifyJson(page, 'other-origin.json', certificate);
    await screenshot(page, 'issuer-untrusted');
    const issuer = page.locator('#issuer');
    const issuerText = await issuer.textContent();
    const colours = {
      verdict: await backgroundOf(page, '#verdict'),
      issuer: await backgroundOf(page, '#issuer'),
    };
    const trustButtons = await page.locator('#issuer button').count();
    await page.fill('#trust-origin', base);
    await page.click('#trust-add');
    await page.locator('#trusted-list', { hasText: base }).waitFor();
    await verifyBy(page);
    const trusted = await verdictOf(page);

    expect(untrusted.verdict).toBe('issuerUntrusted');
    expect(untrusted.rows).toEqual(['anchored']);
    expect(untrusted.text).toContain('Issuer not trusted');
    expect(issuerText).toContain(`Issued by ${base}`);
    expect(issuerText).toContain(`you do not trust ${base}`);
    expect(issuerText).toContain(String(certificate.data.data.issuer));
    // A loopback http origin named in a certificate: never contacted, so no one-click trust.
    expect(issuerText).toContain('never contacts because a certificate names it');
    expect(trustButtons).toBe(0);
    // Its own colour (orange), not the registry's purple nor the verdict green.
    expect(colours.verdict).toBe('rgb(255, 237, 213)');
    expect(colours.issuer).toBe('rgb(255, 237, 213)');
    expect(trusted.verdict).toBe('verified');
    await expect(issuer.getAttribute('data-issuer')).resolves.toBe('trusted');
  });

  it('when the issuer proved a domain, then the page shows it as the proven identity, looked up over DNS-over-HTTPS; a record naming another account, or none, leaves it a claim, and the verdict is verified all along', async () => {
    const domain = `u${randomUUID().slice(0, 8)}.example`;
    const claim = (await call('/issuer-domains', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain }),
    })) as unknown as { data: { record: { name: string; value: string } } };
    const { record } = claim.data;
    dns.zone.set(record.name, [record.value]);
    await call(`/issuer-domains/${domain}/check`, { method: 'POST' });
    const certificate = await certifyContent();
    await call(`/issuer-domains/${domain}`, { method: 'DELETE' });
    const page = await openPage();
    await page.fill('#dns-resolver', dns.dohUrl);
    const identity = page.locator('#issuer .issuer-identity');

    const proven = await verifyJson(page, 'proven-domain.json', certificate);
    const provenText = await identity.textContent();
    const provenState = await identity.getAttribute('data-identity');
    await screenshot(page, 'issuer-proven-domain');
    dns.zone.set(record.name, [
      record.value.replace(/account=\S+/, 'account=did:user:someone-else'),
    ]);
    const otherAccount = await verifyJson(page, 'other-account-domain.json', certificate);
    const otherText = await identity.textContent();
    dns.zone.delete(record.name);
    const gone = await verifyJson(page, 'no-record-domain.json', certificate);
    const goneState = await identity.getAttribute('data-identity');

    expect([proven.verdict, otherAccount.verdict, gone.verdict]).toEqual([
      'verified',
      'verified',
      'verified',
    ]);
    expect(provenState).toBe('proven');
    expect(provenText).toContain(`Proven identity ${domain}`);
    expect(otherText).toContain(`Claims to be ${domain}, not proven`);
    expect(otherText).toContain('names another account');
    expect(goneState).toBe('unproven');
    // The resolver is remembered for the next verification in this browser.
    await expect(page.inputValue('#dns-resolver')).resolves.toBe(dns.dohUrl);
  });

  it('when a certificate names a registry its forger deployed, then it is not verified: shown untrusted with that registry and how to trust', async () => {
    const { data } = await certifyContent();
    const certificate = (await call(
      `/certificates/certID/${encodeURIComponent(data.certID)}`,
    )) as unknown as {
      data: { data: { hash: string }; metadata: { smartContract: string }[] };
    };
    // From an account of the node that the anchoring engine does not use.
    const forged = await deployForgedRegistry(api.chain, certificate.data.data.hash, 9);
    certificate.data.metadata = certificate.data.metadata.map((item) => ({
      ...item,
      smartContract: forged,
    }));
    const page = await openPage();
    await page.setInputFiles(
      '#certificate-file',
      await saved('forged.json', JSON.stringify(certificate)),
    );

    await verifyBy(page);
    const result = await verdictOf(page);
    await screenshot(page, 'forged-registry');

    expect(result.verdict).toBe('untrusted');
    expect(result.rows).toEqual(['untrusted']);
    const help = await page.locator('#how-to-trust').textContent();
    expect(help).toContain(forged);
    expect(help).toContain('Trusted services');
  });

  it('when a certificate of its own service has expired, then the verdict is expired, in its own colour, with the date shown passed', async () => {
    // An expiry must be later than the creation: a second ahead, then waited out.
    const expires = Date.now() + 1_000;
    const { data } = await certifyContent({ expires });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - Date.now() + 50)));
    const page = await openPage(`#${new URLSearchParams({ certID: data.certID }).toString()}`);

    const result = await verdictOf(page);
    await screenshot(page, 'expired');

    expect(result.verdict).toBe('expired');
    expect(result.rows).toEqual(['anchored']);
    await expect(page.locator('#summary').textContent()).resolves.toContain('(passed)');
  });

  it('when an evidence JSON is given instead of a certificate, then it is checked as an evidence against the trusted repository', async () => {
    const evidence = {
      assetHash: randomUUID().replaceAll('-', '').padEnd(64, '0'),
      networkId: 31337,
      timestamp: Math.floor(Date.now() / 1000),
      hash: 'ab'.repeat(32),
      smartContract: api.network.evidenceRepository,
      transactionHash: `0x${'cd'.repeat(32)}`,
    };
    const page = await openPage();
    await page.setInputFiles(
      '#certificate-file',
      await saved('evidence.json', JSON.stringify(evidence)),
    );

    await verifyBy(page);
    const result = await verdictOf(page);

    expect(result.verdict).toBe('notFound');
    expect(result.rows).toEqual(['notFound']);
    await expect(page.locator('#summary').textContent()).resolves.toContain('Evidences');
  });

  it('when a link tries to swap the nodes, then the saved nodes are kept and used until the user clicks to use the link node', async () => {
    const { data } = await certifyContent();
    const liar = `http://127.0.0.1:${String(await closedPort())}`;
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const first = await context.newPage();
    await first.goto(`${base}/cert/v2/verify/`);
    await first.evaluate((nodes) => {
      const { localStorage } = globalThis as unknown as { localStorage: PageStorage };
      localStorage.setItem('trustpoint-verifier:rpc-urls', nodes);
    }, `31337=${api.chain.url}`);
    const page = await context.newPage();

    await page.goto(
      `${base}/cert/v2/verify/#${new URLSearchParams({ certID: data.certID, rpc: `31337=${liar}` }).toString()}`,
    );
    const result = await verdictOf(page);
    const kept = await page.inputValue('#rpc-urls');
    await screenshot(page, 'link-swapping-nodes');
    await page.click('#node-proposals button:has-text("Use this node")');

    expect(result.verdict).toBe('verified');
    expect(kept).toBe(`31337=${api.chain.url}`);
    await expect(page.inputValue('#rpc-urls')).resolves.toBe(
      `31337=${liar}\n31337=${api.chain.url}`,
    );
  });

  it('when a certificate of its own service is verified on a phone, then the verdict comes into view with the chain time, whom it is trusted through, and the content as a table', async () => {
    const { data } = await certifyContent();
    const page = await openPage('', { width: 390, height: 844 });
    await page.fill('#cert-id', data.certID);

    await verifyBy(page);
    const result = await verdictOf(page);
    // Read before the full-page screenshot, which scrolls the page.
    const inView = await page.locator('#verdict').evaluate((box) => {
      const { top } = box.getBoundingClientRect();
      return top > -2 && top < (globalThis as unknown as { innerHeight: number }).innerHeight; // sub-pixel layout
    });
    await screenshot(page, 'phone-verified');

    expect(result.verdict).toBe('verified');
    expect(inView).toBe(true);
    const chainTime = await page.locator('#trustpoints .chain-time').first().textContent();
    expect(chainTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    const rows = await page.locator('#trustpoints tbody').textContent();
    expect(rows).toMatch(/block \d+/);
    expect(rows).toContain(`Trusted through ${base}`);
    await expect(page.locator('#summary').textContent()).resolves.toContain('Order');
    await expect(page.locator('#content').textContent()).resolves.toContain('order');
  });

  it('when the page is asked for without the trailing slash, then it is redirected, and it is served with a strict policy', async () => {
    const response = await fetch(`${base}/cert/v2/verify`, { redirect: 'manual' });
    const page = await fetch(`${base}/cert/v2/verify/`);

    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/cert/v2/verify/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    await expect(page.text()).resolves.toContain('<script src="verifier.js"></script>');
  });

  it('when the instance runs on loopback, then it names its chain node to its own machine only, and publishes its trust document', async () => {
    const local = await fetch(`${base}/cert/v2/verify/local-nodes.json`);
    const proxied = await fetch(`${base}/cert/v2/verify/local-nodes.json`, {
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    });
    const document = await fetch(`${base}/.well-known/trustpoint.json`);

    await expect(local.json()).resolves.toEqual({ nodes: { '31337': [api.chain.url] } });
    await expect(proxied.json()).resolves.toEqual({ nodes: {} });
    await expect(document.json()).resolves.toMatchObject({
      origin: base,
      networks: [{ networkId: '31337' }],
    });
  });
});
