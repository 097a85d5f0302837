import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listener that should see nobody: what a name resolving to a loopback address would reach. */
export interface CountingListener {
  port: number;
  /** Connections made to it so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A real HTTP listener on 127.0.0.1 that answers 404 to anything and counts every connection. */
export async function startCountingListener(): Promise<CountingListener> {
  let connections = 0;
  const listener = createServer((_request, response) => {
    response.writeHead(404).end();
  });
  listener.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => {
          resolve();
        });
        listener.closeAllConnections();
      }),
  };
}
