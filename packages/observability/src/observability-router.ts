import { timingSafeEqual } from 'node:crypto';
import { toErrorBody } from '@trustpoint/domain';
import { Router, type Request, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { checkReadiness, type ReadinessCheck } from './readiness/readiness-check.js';
import { sharedReadiness } from './readiness/shared-readiness.js';

export interface ObservabilityOptions {
  /** What `/readyz` checks (`databaseCheck`, `migrationsCheck`, `networkChecks`, ...). */
  checks: readonly ReadinessCheck[];
  /** Served at `/metrics`; without one, no `/metrics` route. */
  registry?: Registry | undefined;
  /**
   * When set, `/metrics` needs `Authorization: Bearer <token>` (METRICS_TOKEN). Unset, it is open
   * like `/healthz`: Prometheus scrapes without credentials, and the series hold no secrets.
   */
  metricsToken?: string | undefined;
  /** Per readiness check. Default 3 s. */
  checkTimeoutMs?: number | undefined;
  /**
   * How old a `/readyz` answer may be: one round of checks serves every request within this many
   * milliseconds of its end, and concurrent requests share the round in flight. Default 1 s.
   */
  readinessMaxAgeMs?: number | undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function bearerOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/i.exec(header) : null;
  return match?.[1];
}

/** Probes are never cached by a proxy: each answer is about now. */
const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * `GET /healthz` (alive: 200 whenever the process can answer), `GET /readyz` (200 when every
 * check passes, 503 naming each check and why it failed; a result at most `readinessMaxAgeMs` old) and `GET /metrics` (Prometheus text),
 * without a token (but `/metrics` behind `metricsToken` when set). Mounted at the root of a
 * listener, before anything that authenticates or rate-limits.
 */
export function observabilityRouter(options: ObservabilityOptions): Router {
  const router = Router();
  const readinessNow = sharedReadiness(
    () => checkReadiness(options.checks, options.checkTimeoutMs),
    options.readinessMaxAgeMs,
  );
  router.get('/healthz', noStore, (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', noStore, async (_req, res) => {
    const readiness = await readinessNow();
    res.status(readiness.ready ? 200 : 503).json({
      status: readiness.ready ? 'ready' : 'not ready',
      ...(readiness.ready
        ? {}
        : { failed: readiness.checks.filter((check) => !check.ok).map((check) => check.name) }),
      checks: readiness.checks,
    });
  });
  const { registry } = options;
  if (registry !== undefined) {
    router.get('/metrics', noStore, async (req, res) => {
      const token = options.metricsToken;
      if (token !== undefined && token !== '') {
        const given = bearerOf(req);
        if (given === undefined || !sameToken(given, token)) {
          res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
          // The catalogue's 401, as every other route answers it.
          res.status(401).json(toErrorBody(given === undefined ? 'missingToken' : 'invalidToken'));
          return;
        }
      }
      res.setHeader('Content-Type', registry.contentType);
      res.status(200).send(await registry.metrics());
    });
  }
  return router;
}
