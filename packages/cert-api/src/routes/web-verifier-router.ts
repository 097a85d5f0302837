import { isLoopbackOrigin, PUBLIC_CHAINS, type PublicChain } from '@trustpoint/verifier';
import { WEB_VERIFIER_CSP, WEB_VERIFIER_DIRECTORY } from '@trustpoint/web-verifier';
import express, { Router, type Request } from 'express';

export const WEB_VERIFIER_PATH = '/verify';

/** A network's node as the service configures it. */
export interface ConfiguredNode {
  networkId: string;
  rpcUrl: string;
}

export interface WebVerifierRouterOptions {
  /** The page's files; the built web verifier by default. */
  directory?: string;
  /** The service's networks, for the nodes of a local instance (see `local-nodes.json`). */
  nodes?: () => readonly ConfiguredNode[];
  /**
   * The public endpoints of well-known chains the page may ask for a network its user lists no
   * node for (see `public-endpoints.json`); the verifier's `PUBLIC_CHAINS` by default, none when
   * empty.
   */
  publicEndpoints?: () => readonly PublicChain[];
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const isLoopbackAddress = (address: string | undefined): boolean =>
  address !== undefined &&
  (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/**
 * Whether the request comes from this machine to this machine, directly: asked on a loopback
 * host, from a loopback address, and not through a proxy. Only then is a loopback node the
 * reader's own machine's node.
 */
function isLocalRequest(req: Request): boolean {
  const host = req.headers.host ?? '';
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return (
    LOOPBACK_HOSTS.has(hostname ?? '') &&
    isLoopbackAddress(req.socket.remoteAddress) &&
    req.headers['x-forwarded-for'] === undefined &&
    req.headers.forwarded === undefined
  );
}

/**
 * GET /verify/: the web verifier, static files without a token. The page checks a certificate in
 * the browser against nodes the user lists; it reads from this service only a certificate asked
 * for by certID, `/networks` (explorer links), `/.well-known/jwks.json` (signatures) and the trust
 * document at the listener's root.
 *
 * GET /verify/local-nodes.json: the nodes a local instance's page proposes (the embedded chain of
 * `npm start` on whatever port it runs). The trust document names no node by design; this answers
 * only loopback nodes, and only to a request made on this machine, so a public service never tells
 * its internal node to anyone. Anything else gets `{"nodes": {}}`.
 *
 * GET /verify/public-endpoints.json: `{"chains": [...]}`, the public endpoints of well-known
 * chains this page may ask (two operators must agree) when its user lists no node for a network:
 * the operator's setting, else the verifier's built-in list. Public knowledge, answered to anyone.
 */
export function webVerifierRouter(options: WebVerifierRouterOptions = {}): Router {
  const router = Router();
  const securityHeaders: express.RequestHandler = (_req, res, next) => {
    res.set({
      'Content-Security-Policy': WEB_VERIFIER_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    next();
  };
  router.get(`${WEB_VERIFIER_PATH}/local-nodes.json`, securityHeaders, (req, res) => {
    const nodes: Record<string, string[]> = {};
    if (isLocalRequest(req)) {
      for (const node of options.nodes?.() ?? []) {
        if (isLoopbackOrigin(node.rpcUrl)) (nodes[node.networkId] ??= []).push(node.rpcUrl);
      }
    }
    res.set('cache-control', 'no-store');
    res.status(200).json({ nodes });
  });
  router.get(`${WEB_VERIFIER_PATH}/public-endpoints.json`, securityHeaders, (_req, res) => {
    res.set('cache-control', 'no-cache');
    res.status(200).json({ chains: options.publicEndpoints?.() ?? PUBLIC_CHAINS });
  });
  router.use(
    WEB_VERIFIER_PATH,
    securityHeaders,
    express.static(options.directory ?? WEB_VERIFIER_DIRECTORY, {
      index: 'index.html',
      maxAge: '5m',
      fallthrough: true,
    }),
  );
  return router;
}
