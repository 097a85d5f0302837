import { readLocalNodes } from '@trustpoint/verifier';

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
    return readLocalNodes(await response.json());
  } catch {
    return {};
  }
}
