import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  body: string;
}

/**
 * A service of its own on a free local port: it answers every request 200 with the JSON text it
 * is given, as written (a forger's service answers what it likes), and keeps what it received.
 */
export async function startAnsweringServer(answer: (request: ReceivedRequest) => string): Promise<{
  url: string;
  received: ReceivedRequest[];
  close: () => Promise<void>;
}> {
  const received: ReceivedRequest[] = [];
  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) => {
        const seen = { method: request.method ?? '', url: request.url ?? '', body };
        received.push(seen);
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(answer(seen));
      })
      .catch(() => {
        response.destroy();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
