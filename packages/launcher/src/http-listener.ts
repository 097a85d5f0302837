import type { RequestListener, Server } from 'node:http';
import { createApiServer } from '@trustpoint/http';

/**
 * Connections the kernel holds for the API while it has not accepted them yet. Node's default
 * (511) overflows when thousands of clients connect while the event loop is busy (a PGlite query
 * runs on it): the kernel then drops their SYNs, and each client waits 1, 3, 7, 15 s for its
 * retransmissions before its first request is even read. Linux caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 8_192;

/**
 * Starts listening, with the API server's timeouts (a client trickling its headers or body is
 * cut off); a port in use is said plainly.
 */
export function listen(app: RequestListener, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createApiServer(app);
    server.listen({ port, host, backlog: LISTEN_BACKLOG });
    server.once('listening', () => {
      resolve(server);
    });
    server.once('error', (error: NodeJS.ErrnoException) => {
      // Keeps the code, so the command prints the sentence alone rather than a stack trace.
      reject(
        error.code === 'EADDRINUSE'
          ? Object.assign(
              new Error(
                `${host}:${String(port)} is already in use (is Trustpoint already running?): stop that process, or choose free ports with CERT_API_PORT, TRACK_API_PORT and HEALTH_PORT`,
                { cause: error },
              ),
              { code: 'EADDRINUSE' },
            )
          : error,
      );
    });
  });
}

/**
 * Stops a listener the way a load balancer expects: no new connections, idle keep-alive
 * connections closed at once, requests in flight answered; those still running after `graceMs`
 * have their connections cut. A request waiting for its record to be anchored is answered if the
 * anchoring ends within the grace; otherwise its record stays queued and is anchored anyway.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => {
      server.closeAllConnections();
    }, graceMs);
    // A connection whose request was in flight is kept alive once answered (65 s): closed as soon
    // as it is idle, not at the deadline.
    const sweep = setInterval(() => {
      server.closeIdleConnections();
    }, IDLE_SWEEP_MS);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** How often a stopping listener closes the connections that became idle. */
const IDLE_SWEEP_MS = 50;
