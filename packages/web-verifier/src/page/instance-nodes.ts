/**
 * The nodes of the instance that served this page, when it is this machine's own (a loopback
 * origin): `npm start`'s embedded chain on whatever port it runs. The trust document names no
 * node by design; the instance answers `local-nodes.json` with its loopback nodes only to a
 * request made on this machine. Anything else, or no answer, proposes nothing.
 */
export async function fetchInstanceNodes(pageUrl: string): Promise<Record<string, string[]>> {
  try {
    const response = await fetch(new URL('local-nodes.json', pageUrl), { credentials: 'omit' });
    if (!response.ok) return {};
    const body = (await response.json()) as { nodes?: unknown };
    const nodes: Record<string, string[]> = {};
    if (typeof body.nodes !== 'object' || body.nodes === null) return {};
    for (const [networkId, urls] of Object.entries(body.nodes as Record<string, unknown>)) {
      if (!/^[1-9][0-9]{0,15}$/.test(networkId) || !Array.isArray(urls)) continue;
      const loopback = urls.filter(
        (url): url is string =>
          typeof url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(url),
      );
      if (loopback.length > 0) nodes[networkId] = loopback;
    }
    return nodes;
  } catch {
    return {};
  }
}
