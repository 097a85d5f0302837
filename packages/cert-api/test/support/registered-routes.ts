import type { Express } from 'express';

export interface RegisteredRoute {
  method: string;
  /** Full path as Express matches it, e.g. `/cert/v2/certificates/:lookup/:id`. */
  path: string;
}

/** The parts of Express 5's router (the `router` package) that describe what is mounted. */
interface RouterLayer {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  handle?: { stack?: RouterLayer[] };
}

function walk(stack: RouterLayer[], prefix: string): RegisteredRoute[] {
  return stack.flatMap((layer): RegisteredRoute[] => {
    if (layer.route) {
      const { path, methods } = layer.route;
      if (typeof path !== 'string') throw new Error(`route with a non-string path under ${prefix}`);
      return Object.keys(methods)
        .filter((method) => method !== '_all' && methods[method] === true)
        .map((method) => ({ method, path: prefix + path }));
    }
    const nested = layer.handle?.stack;
    if (!Array.isArray(nested)) return [];
    if (layer.slash === true) return walk(nested, prefix);
    // A router mounted on a pattern or several paths could not be compared with the document.
    if (typeof layer.rawPath !== 'string') {
      throw new Error(`router mounted on a non-string path under ${prefix || '/'}`);
    }
    return walk(nested, prefix + layer.rawPath);
  });
}

/**
 * Every route registered in the app, found by walking its router stack (nested routers
 * included), so routes added later are seen without anyone listing them.
 */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const { router } = app as unknown as { router: { stack: RouterLayer[] } };
  return walk(router.stack, '');
}
