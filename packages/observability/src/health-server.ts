import type { Server } from 'node:http';
import { createApiServer, requestId, type ApiServerTimeouts } from '@trustpoint/http';
import express from 'express';
import { httpMetrics } from './metrics/http-metrics.js';
import { observabilityRouter, type ObservabilityOptions } from './observability-router.js';

export interface HealthServerOptions extends ObservabilityOptions {
  port: number;
  /** Default `127.0.0.1`; `0.0.0.0` in a container, so its orchestrator can probe it. */
  host?: string;
  /** How long a client may take to send a request; the APIs' defaults by default. */
  timeouts?: Partial<ApiServerTimeouts>;
}

export interface HealthServer {
  /** The port it listens on (the one chosen when `port` was 0). */
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * `/healthz`, `/readyz` and `/metrics` on a small HTTP listener of their own, for a process with no
 * API (the anchoring process, `serve anchor`). Nothing else is served there: other paths are 404.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Like the APIs: every answer carries X-Request-Id.
  app.use(requestId);
  if (options.registry !== undefined) app.use(httpMetrics(options.registry));
  app.use(observabilityRouter(options));
  app.use((_req, res) => {
    res.status(404).json({ statusCode: 404, type: 'Not Found', message: 'not found' });
  });
  const host = options.host ?? '127.0.0.1';
  // The APIs' server: a client trickling its request is cut off here too.
  const server: Server = createApiServer(app, options.timeouts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
