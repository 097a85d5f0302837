// The served web verifier in headless Chromium, on which nodes its verdicts rest: a node of another
// chain with the same chain id, public endpoints of a well-known chain (two must agree), and a
// link that tries to swap the user's nodes. Public endpoints cannot be reached from a test: the
// served page's setting lists stand-ins on this machine instead, the instance's real Hardhat chain,
// relays in front of it (one of them lying), and a second Hardhat node (another chain, id 31337).
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jsonRpcCall, startHardhatNode, type HardhatNode } from '@trustpoint/contracts';
import {
  answeringTrustPointsWith,
  startJsonRpcRelay,
  type JsonRpcRelay,
} from '@trustpoint/test-doubles/json-rpc-relay';
import { certifyOverHttp } from '@trustpoint/test-kit/fixtures';
import type { PublicChain } from '@trustpoint/verifier';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { chromiumAvailable, launchChromium } from './support/headless-chromium.js';

/** The page's local storage, as the tests use it (this package is typed without the DOM). */
interface PageStorage {
  setItem(key: string, value: string): void;
}

const SCREENSHOTS = join(__dirname, '..', 'screenshots');
/** What the user keeps when they list no node of their own. */
const NO_NODE = '# no node of mine';

describe.skipIf(!chromiumAvailable())('the web verifier in a browser: which nodes count', () => {
  let api: CertApiFixture;
  let server: Server;
  let base: string;
  let browser: Browser;
  let token: string;
  let genesisHash: string;
  /** A second Hardhat node: chain id 31337 as well, another genesis: another chain. */
  let impostor: HardhatNode;
  /** What the served page's setting lists as public endpoints, read at each page load. */
  let standIns: PublicChain[] = [];
  const relays: JsonRpcRelay[] = [];

  beforeAll(async () => {
    api = await startCertApi('pglite', {
      publicOrigin: () => base,
      verifierPublicEndpoints: () => standIns,
    });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    ({ token } = await api.user());
    // Block 0 is dated at the node's start: two chains started in the same second have the same
    // genesis and are, to any verifier, one chain. The impostor's is dated a year back.
    impostor = await startHardhatNode({
      initialDate: new Date(Date.now() - 365 * 86_400_000).toISOString(),
    });
    genesisHash = (
      (await jsonRpcCall(api.chain.url, 'eth_getBlockByNumber', ['0x0', false])) as {
        hash: string;
      }
    ).hash;
    const impostorGenesis = (
      (await jsonRpcCall(impostor.url, 'eth_getBlockByNumber', ['0x0', false])) as {
        hash: string;
      }
    ).hash;
    if (impostorGenesis === genesisHash) throw new Error('the impostor chain has the same genesis');
    browser = await launchChromium();
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    for (const relay of relays) await relay.close();
    await impostor.stop();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await api.close();
  });

  const certify = async () => (await certifyOverHttp(base, token)).data;

  const relay = async (change?: Parameters<typeof startJsonRpcRelay>[1]) => {
    const started = await startJsonRpcRelay(api.chain.url, change);
    relays.push(started);
    return started.url;
  };

  /** The instance's chain, as public endpoints of two operators would serve it. */
  const standInChain = (urls: string[]): PublicChain[] => [
    {
      name: 'Stand-in chain',
      chainId: 31337,
      genesisHash,
      endpoints: urls.map((url, index) => ({ url, operator: `Operator ${String(index + 1)}` })),
    },
  ];

  /** Opens the served page on a link, in a browser that keeps `nodes` as the user's own. */
  const openWithNodes = async (nodes: string, hash: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const first = await context.newPage();
    await first.goto(`${base}/cert/v2/verify/`);
    await first.evaluate((saved) => {
      const { localStorage } = globalThis as unknown as { localStorage: PageStorage };
      localStorage.setItem('trustpoint-verifier:rpc-urls', saved);
    }, nodes);
    const page = await context.newPage();
    await page.goto(`${base}/cert/v2/verify/#${hash}`);
    return page;
  };
  const link = (certID: string, rpc?: string) =>
    new URLSearchParams(rpc === undefined ? { certID } : { certID, rpc }).toString();

  const verdictOf = async (page: Page) => {
    const verdict = page.locator('#verdict[data-verdict]');
    await verdict.waitFor({ timeout: 60_000 });
    const row = page.locator('#trustpoints tbody tr').first();
    return {
      verdict: await verdict.getAttribute('data-verdict'),
      row: await row.getAttribute('data-verdict'),
      detail: (await row.textContent()) ?? '',
      status: (await page.locator('#trustpoints tbody tr').last().textContent()) ?? '',
    };
  };

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it("when the user's node is of another chain with the same chain id, then it is refused, named, and nothing is verified", async () => {
    const { certID } = await certify();

    const page = await openWithNodes(`31337=${impostor.url}`, link(certID));
    const result = await verdictOf(page);
    await screenshot(page, 'node-of-another-chain');

    expect(result.verdict).toBe('unchecked');
    expect(result.row).toBe('unreachable');
    expect(result.detail).toContain(`${impostor.url} failed`);
    expect(result.detail).toContain('another chain with the same chain id');
  });

  it('when the user lists no node and two public endpoints of different operators agree, then it is verified with the chain time, naming both', async () => {
    const { certID } = await certify();
    const second = await relay();
    standIns = standInChain([api.chain.url, second]);

    const page = await openWithNodes(NO_NODE, link(certID));
    const result = await verdictOf(page);
    await screenshot(page, 'public-endpoints-agree');

    expect(result.verdict).toBe('verified');
    expect(result.detail).toContain(`Answered alike by ${api.chain.url} and ${second}`);
    expect(result.status).toContain(`Answered alike by ${api.chain.url} and ${second}`);
    const chainTime = await page.locator('#trustpoints .chain-time').first().textContent();
    expect(chainTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    await expect(page.locator('#public-chains').textContent()).resolves.toContain(
      'Stand-in chain (31337)',
    );
  });

  it('when a public endpoint answers another record, then the endpoints disagree: not verified, both answers shown', async () => {
    const { certID, data } = await certify();
    const other = 'ab'.repeat(32);
    const liar = await relay(answeringTrustPointsWith(other));
    standIns = standInChain([api.chain.url, liar]);

    const page = await openWithNodes(NO_NODE, link(certID));
    const result = await verdictOf(page);
    await screenshot(page, 'public-endpoints-disagree');

    expect(result.verdict).toBe('unchecked');
    expect(result.row).toBe('disagreement');
    expect(result.detail).toContain('public endpoints disagree');
    expect(result.detail).toContain(`${api.chain.url} answered hash ${data.hash}`);
    expect(result.detail).toContain(`${liar} answered hash ${other}`);
  });

  it('when one public endpoint is of another chain with the same chain id, then it is refused, and one endpoint alone is not enough', async () => {
    const { certID } = await certify();
    standIns = standInChain([api.chain.url, impostor.url]);

    const page = await openWithNodes(NO_NODE, link(certID));
    const result = await verdictOf(page);

    expect(result.verdict).toBe('unchecked');
    expect(result.detail).toContain(`${impostor.url} failed`);
    expect(result.detail).toContain('at least 2 operators must agree');
  });

  it("when a link names a node of another chain, then the user's node is kept and used, the link's only proposed; taken by a click, it is refused and the user's still answers", async () => {
    const { certID } = await certify();

    const page = await openWithNodes(
      `31337=${api.chain.url}`,
      link(certID, `31337=${impostor.url}`),
    );
    const before = await verdictOf(page);
    const kept = await page.inputValue('#rpc-urls');
    await page.click('#node-proposals button:has-text("Use this node")');
    await page.click('#verify');
    await page.locator('body[data-state="done"]').waitFor({ timeout: 60_000 });
    const after = await verdictOf(page);

    expect(before.verdict).toBe('verified');
    expect(kept).toBe(`31337=${api.chain.url}`);
    expect(before.detail).toContain(`Answered by ${api.chain.url}`);
    expect(after.verdict).toBe('verified');
    expect(after.detail).toContain(`${impostor.url} failed`);
    expect(after.detail).toContain(`Answered by ${api.chain.url}`);
  });
});
