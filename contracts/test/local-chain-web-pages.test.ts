// A web page (the web verifier) may read the embedded chain from another origin, and only read.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../src/free-port';
import { startLocalChain, type LocalChain } from '../src/local-chain';

describe('Local chain for web pages', function () {
  this.timeout(120_000);
  let chain: LocalChain;
  const PAGE = 'http://page.example';
  const call = (method: string, headers: Record<string, string> = { origin: PAGE }) =>
    fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: [] }),
    });

  before(async () => {
    chain = await startLocalChain({
      dataDir: await mkdtemp(join(tmpdir(), 'trustpoint-chain-cors-')),
      port: await freePort(),
    });
  });
  after(async () => {
    await chain.stop();
  });

  it('should answer a preflight for a JSON POST from any origin', async () => {
    const response = await fetch(chain.url, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });

    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('access-control-allow-headers')).to.equal('content-type');
  });

  it('should answer a read from a page with the CORS header', async () => {
    const response = await call('eth_chainId');

    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(await response.json()).to.deep.include({ id: 7, result: '0x7a69' });
  });

  it('should refuse a page anything but reads, and still serve the same call to the service', async () => {
    const fromPage = (await (await call('eth_accounts')).json()) as { error: { code: number } };
    const fromService = (await (await call('eth_accounts', { ...chain.writeHeaders })).json()) as {
      result: string[];
    };

    expect(fromPage.error.code).to.equal(-32601);
    expect(fromService.result).to.have.length.above(0);
  });
});
