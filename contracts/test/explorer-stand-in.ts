import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: URL;
  contentType: string | undefined;
  body: string;
}

export type ExplorerStandIn = Awaited<ReturnType<typeof startExplorerStandIn>>;

/**
 * Stands in for the explorers, which cannot be reached from here: a real HTTP server that records
 * every request and answers as Etherscan's API (`/api`) and Sourcify's (`/sourcify`) do for a
 * contract not yet verified, then accepted. Only the requests hardhat-verify builds are real.
 */
export async function startExplorerStandIn() {
  const requests: RecordedRequest[] = [];
  const answer = (request: RecordedRequest): unknown => {
    const { pathname, searchParams } = request.url;
    if (pathname === '/api' && request.method === 'GET') {
      if (searchParams.get('action') === 'getsourcecode') {
        return { status: '1', message: 'OK', result: [{ SourceCode: '' }] };
      }
      return { status: '1', message: 'OK', result: 'Pass - Verified' }; // checkverifystatus
    }
    if (pathname === '/api') {
      return { status: '1', message: 'OK', result: `guid-${String(requests.length)}` };
    }
    if (pathname === '/sourcify/check-all-by-addresses') {
      return [{ address: searchParams.get('addresses'), status: 'false' }];
    }
    const { address, chain } = JSON.parse(request.body) as { address: string; chain: string };
    return { result: [{ address, chainId: chain, status: 'perfect' }] };
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://stand-in'),
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer(recorded)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
