import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A service that is up but hung: it takes every connection and never says a word. */
export interface SilentListener {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Connections made to it so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A real TCP listener on 127.0.0.1 that accepts connections and never writes to them. */
export async function startSilentListener(): Promise<SilentListener> {
  const sockets: Socket[] = [];
  const listener = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((listener.address() as AddressInfo).port)}`,
    connections: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        listener.close(() => {
          resolve();
        });
      }),
  };
}
