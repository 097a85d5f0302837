import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every series this package defines starts with it. */
export const METRICS_PREFIX = 'trustpoint_';

/**
 * A registry of its own (never prom-client's global one, so two apps in one process, as in
 * `serve all` or a test, do not collide), with Node's process metrics: CPU, memory, event-loop
 * lag, handles.
 */
export function createMetricsRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX });
  return registry;
}
