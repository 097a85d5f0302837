import cors from 'cors';
import { Router } from 'express';

/**
 * Which origins may read the public routes from a web page (`CORS_ORIGINS`): `*` (any, the
 * default: the answers are public) or a list of exact origins such as `https://verify.example`.
 */
export type CorsOrigins = '*' | readonly string[];

export const DEFAULT_CORS_ORIGINS: CorsOrigins = '*';

/** Reads `CORS_ORIGINS`: empty or `*` for any origin, else origins separated by commas. */
export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  const text = value?.trim() ?? '';
  if (text === '' || text === '*') return '*';
  return text.split(',').map((item) => {
    const origin = item.trim();
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new Error(`CORS_ORIGINS: "${origin}" is not an origin such as https://verify.example`);
    }
    if (parsed.origin !== origin) {
      throw new Error(`CORS_ORIGINS: "${origin}" is not an origin (write it as ${parsed.origin})`);
    }
    return origin;
  });
}

/** An Express path pattern of plain segments and `:params` as an exact, anchored RegExp. */
function exactPath(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}/?$`);
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CORS for the public read routes only (`paths`, Express path patterns such as
 * `/certificates/:type/:id`, matched exactly): GET and HEAD answers readable by a page of an
 * allowed origin, and their preflights. Never credentials, and no `Authorization` header allowed in
 * a preflight, so a page of another origin reads what anyone may read and nothing more. Other
 * routes get no CORS headers at all. A middleware rather than routes: the app's routes stay exactly
 * the documented operations.
 */
export function publicReadCors(paths: readonly string[], origins: CorsOrigins): Router {
  const patterns = paths.map(exactPath);
  const handler = cors({
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Accept', 'Content-Type', 'Range'],
    exposedHeaders: [
      'X-Request-Id',
      'ETag',
      'Content-Range',
      'Content-Disposition',
      'Retry-After',
      'RateLimit',
      'RateLimit-Policy',
    ],
    credentials: false,
    maxAge: 600,
  });
  const router = Router();
  router.use((req, res, next) => {
    if (READ_METHODS.has(req.method) && patterns.some((pattern) => pattern.test(req.path))) {
      handler(req, res, next);
      return;
    }
    next();
  });
  return router;
}
