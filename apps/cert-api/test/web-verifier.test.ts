// The web verifier, end to end: served by the API, run in headless Chromium, checking certificates
// made by the API against the real chain node, as a person would use it.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WEB_VERIFIER_STANDALONE_FILE } from '@trustpoint/web-verifier';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { chromiumAvailable, launchChromium } from './support/headless-chromium.js';

const SCREENSHOTS = join(__dirname, '..', 'screenshots');
const EXPLORER = 'https://explorer.example';

/** A port nothing listens on: a node that is down. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    probe.close(() => {
      resolve();
    });
  });
  return port;
}

describe.skipIf(!chromiumAvailable())('the web verifier in a browser', () => {
  let api: CertApiFixture;
  let server: Server;
  let base: string;
  let browser: Browser;
  let token: string;
  let dir: string;

  beforeAll(async () => {
    api = await startCertApi('pglite', { explorerUrl: EXPLORER });
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

  const certifyContent = () =>
    call('/certificates?type=content&networkId=31337', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Order',
        description: 'web verifier test',
        public: true,
        content: { order: randomUUID() },
      }),
    });

  const saved = async (name: string, content: string | Uint8Array) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };

  /** Opens the page the API serves, in a fresh context (no remembered nodes). */
  const openPage = async (hash = ''): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/cert/v2/verify/${hash}`);
    return page;
  };

  const verdictOf = async (page: Page) => {
    const verdict = page.locator('#verdict[data-verdict]');
    await verdict.waitFor({ timeout: 60_000 });
    return {
      verdict: await verdict.getAttribute('data-verdict'),
      text: await verdict.textContent(),
      rows: await Promise.all(
        (await page.locator('#trustpoints tbody tr').all()).map((row) =>
          row.getAttribute('data-verdict'),
        ),
      ),
    };
  };

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('when a file and its certificate JSON are given, then the browser hashes the file, reads the chain and says verified, with explorer links', async () => {
    const bytes = new TextEncoder().encode(`my contract, signed ${randomUUID()}\n`);
    const certificate = await certifyFile(bytes, 'contract');
    const page = await openPage();
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);
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
    await expect(page.locator('#summary').textContent()).resolves.toContain(
      'data.hash and data.fileHash recomputed from the file',
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
    await page.fill('#rpc-urls', `31337=${api.chain.url}`);
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
    const link = new URLSearchParams({ certID: data.certID, rpc: `31337=${api.chain.url}` });

    const page = await openPage(`#${link.toString()}`);
    const result = await verdictOf(page);
    await screenshot(page, 'revoked');

    expect(result.verdict).toBe('revoked');
    expect(result.rows).toEqual(['anchored', 'revoked']);
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
      const link = new URLSearchParams({ certID: data.certID, rpc: `31337=${api.chain.url}` });

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

  it('when the standalone file is opened from disk on a certID link, then it reads the certificate across origins and verifies it', async () => {
    const { data } = await certifyContent();
    const link = new URLSearchParams({
      certID: data.certID,
      service: `${base}/cert/v2/`,
      rpc: `31337=${api.chain.url}`,
    });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();

    await page.goto(`${pathToFileURL(WEB_VERIFIER_STANDALONE_FILE).toString()}#${link.toString()}`);
    const result = await verdictOf(page);
    await screenshot(page, 'standalone-from-disk');

    expect(result.verdict).toBe('verified');
    expect(result.rows).toEqual(['anchored']);
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
});
