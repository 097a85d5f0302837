import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRICS_PREFIX } from './metrics-registry.js';

/** Requests that matched no route: one label value, whatever the path (bounded cardinality). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds; certificate creations wait for their block, so the tail goes to a minute. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The route's pattern (`/cert/v2/certificates/:certId`), never the path the caller sent: ids in
 * paths would make a series per certificate, and every spelling of a path a series of its own.
 * The route's own part is its declared pattern; the part it is mounted under (`req.baseUrl`) is
 * the caller's text, which Express matched without regard to case (`/Cert/v2`), so it is taken in
 * lower case, the case every mount path is declared in.
 */
export function routePatternOf(req: Request): string {
  // Express sets `req.route` on the request a route answered; its typings say `any`.
  const route: unknown = (req as { route?: unknown }).route;
  if (typeof route !== 'object' || route === null || !('path' in route)) return UNMATCHED_ROUTE;
  const path: unknown = route.path;
  return `${req.baseUrl.toLowerCase()}${typeof path === 'string' ? path : String(path)}`;
}

const LABEL_NAMES = ['method', 'route', 'status'] as const;
const REQUESTS = `${METRICS_PREFIX}http_requests_total`;
const DURATION = `${METRICS_PREFIX}http_request_duration_seconds`;

// Made once per registry: several listeners of one process (or a health server beside an API)
// share the series.
function httpRequestSeries(registry: Registry): Counter<(typeof LABEL_NAMES)[number]> {
  const existing = registry.getSingleMetric(REQUESTS);
  if (existing instanceof Counter) return existing;
  return new Counter({
    name: REQUESTS,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: LABEL_NAMES,
    registers: [registry],
  });
}

function httpDurationSeries(registry: Registry): Histogram<(typeof LABEL_NAMES)[number]> {
  const existing = registry.getSingleMetric(DURATION);
  if (existing instanceof Histogram) return existing;
  return new Histogram({
    name: DURATION,
    help: 'Time from the request to the end of its answer, by method, route pattern and status',
    labelNames: LABEL_NAMES,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
}

/** Counts each request and times it, by method, route pattern and status, once it is answered. */
export function httpMetrics(registry: Registry): RequestHandler {
  const requests = httpRequestSeries(registry);
  const duration = httpDurationSeries(registry);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = {
        // Only the methods the APIs answer; anything else is one value.
        method: /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(req.method)
          ? req.method
          : 'OTHER',
        route: routePatternOf(req),
        status: String(res.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
