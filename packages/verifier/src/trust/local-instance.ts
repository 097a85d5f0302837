const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether an origin is this machine's (loopback): a service the user pins there is their own
 * instance (`npm start`), whose development registries count on this machine, in the CLI's trust
 * file as in the web verifier's trusted services. Never through a certificate naming it.
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * Where a local instance answers the nodes of its chain (`{"nodes": {"<networkId>": [url]}}`),
 * beside its web verifier, and only to a request made on its own machine: the trust document names
 * no node by design.
 */
export const LOCAL_NODES_PATH = '/cert/v2/verify/local-nodes.json';

const LOOPBACK_NODE = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/;

/**
 * The loopback nodes of a `local-nodes.json` answer, per network id; anything else in it (a
 * remote node, a network id that is not one, another shape) is left out.
 */
export function readLocalNodes(body: unknown): Record<string, string[]> {
  const nodes: Record<string, string[]> = {};
  const listed = (body as { nodes?: unknown } | null)?.nodes;
  if (typeof listed !== 'object' || listed === null) return nodes;
  for (const [networkId, urls] of Object.entries(listed as Record<string, unknown>)) {
    if (!/^[1-9][0-9]{0,15}$/.test(networkId) || !Array.isArray(urls)) continue;
    const loopback = urls.filter(
      (url): url is string => typeof url === 'string' && LOOPBACK_NODE.test(url),
    );
    if (loopback.length > 0) nodes[networkId] = loopback;
  }
  return nodes;
}
