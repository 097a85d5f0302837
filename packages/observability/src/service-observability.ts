import type { AnchorEngine, NetworkConfig } from '@trustpoint/chain';
import type { RequestHandler, Router } from 'express';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { anchoringMetrics } from './metrics/anchoring-metrics.js';
import { databasePoolMetrics } from './metrics/database-metrics.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { createMetricsRegistry } from './metrics/metrics-registry.js';
import { webhookMetrics, type WebhookAttempt } from './metrics/webhook-metrics.js';
import { observabilityRouter } from './observability-router.js';
import { databaseCheck, migrationsCheck } from './readiness/database-checks.js';
import { networkChecks } from './readiness/network-checks.js';
import type { ReadinessCheck } from './readiness/readiness-check.js';

export interface ServiceObservabilityOptions {
  knex: Knex;
  networks: readonly NetworkConfig[];
  /** The process's engine: its settled batches feed the anchoring series, its health /readyz. */
  engine?: AnchorEngine | undefined;
  /** `METRICS_TOKEN`: when set, `/metrics` needs it as a bearer token. */
  metricsToken?: string | undefined;
  /** Labels on every series, e.g. `{ role: 'cert' }`. */
  labels?: Record<string, string> | undefined;
  /** How old a `/readyz` answer may be (`observabilityRouter`). Default 1 s. */
  readinessMaxAgeMs?: number | undefined;
}

/** Everything a process of the service mounts or wires for health and metrics. */
export interface ServiceObservability {
  registry: Registry;
  checks: ReadinessCheck[];
  /** Mount first on every API listener: times each request by route pattern and status. */
  httpMetrics: RequestHandler;
  /** `/healthz`, `/readyz`, `/metrics`: mount at the root of every API listener. */
  router: Router;
  /** Pass as the webhook worker's `onAttempt`. */
  onWebhookAttempt: (attempt: WebhookAttempt) => void;
  /** Stops observing the engine. */
  close(): void;
}

/**
 * The health and metrics of one process, wired once and shared by the listeners it runs (both
 * APIs in `serve all` report into one registry, so nothing is counted twice): readiness checks
 * for the database, its migrations and every network's node and registrar; the HTTP, anchoring,
 * database-pool and webhook series.
 */
export function serviceObservability(options: ServiceObservabilityOptions): ServiceObservability {
  const { knex, engine } = options;
  const registry = createMetricsRegistry(options.labels);
  const checks = [
    databaseCheck(knex),
    migrationsCheck(knex),
    ...networkChecks({
      networks: options.networks,
      ...(engine === undefined
        ? {}
        : {
            health: (networkId: string) => {
              try {
                return engine.networkHealth(networkId);
              } catch {
                return undefined;
              }
            },
          }),
    }),
  ];
  databasePoolMetrics(registry, knex);
  const observer = anchoringMetrics({ registry, knex, networks: options.networks });
  const stopObserving = engine?.observe(observer);
  const middleware = httpMetrics(registry);
  return {
    registry,
    checks,
    httpMetrics: middleware,
    router: observabilityRouter({
      checks,
      registry,
      metricsToken: options.metricsToken,
      readinessMaxAgeMs: options.readinessMaxAgeMs,
    }),
    onWebhookAttempt: webhookMetrics(registry, knex),
    close: () => {
      stopObserving?.();
    },
  };
}
