import { PUBLIC_CHAINS, readPublicChains, type PublicChain } from '@trustpoint/verifier';
import { element } from './dom.js';
import { pageStorage } from './page-storage.js';

const STORAGE_KEY = 'trustpoint-verifier:public-endpoints';

/**
 * The public endpoints of well-known chains this page may ask for a network its user lists no
 * node for (a record counts only when two operators agree). The served page takes its service's
 * setting (`public-endpoints.json`), the standalone page, or a service that answers nothing
 * usable, the verifier's built-in list.
 */
export async function loadPublicChains(
  pageUrl: string | undefined,
): Promise<readonly PublicChain[]> {
  if (pageUrl === undefined) return PUBLIC_CHAINS;
  try {
    const response = await fetch(new URL('public-endpoints.json', pageUrl), {
      credentials: 'omit',
    });
    if (!response.ok) return PUBLIC_CHAINS;
    return readPublicChains(await response.json());
  } catch {
    return PUBLIC_CHAINS;
  }
}

/** Whether the user lets the page ask public endpoints: yes unless they turned it off here. */
export function savedPublicChoice(): boolean {
  try {
    return pageStorage().getItem(STORAGE_KEY) !== 'off';
  } catch {
    return true;
  }
}

export function rememberPublicChoice(use: boolean): void {
  try {
    pageStorage().setItem(STORAGE_KEY, use ? 'on' : 'off');
  } catch {
    // Not remembered: the box says what this visit does.
  }
}

/** The chains the page knows public endpoints for, each with its endpoints in a tooltip. */
export function showPublicChains(line: HTMLElement, chains: readonly PublicChain[]): void {
  if (chains.length === 0) {
    line.textContent = 'This page knows no public endpoint.';
    return;
  }
  line.replaceChildren(
    'Known: ',
    ...chains.flatMap((chain, index) => {
      const name = element('span', `${chain.name} (${String(chain.chainId)})`, 'public-chain');
      name.title = chain.endpoints
        .map((endpoint) => `${endpoint.url} (${endpoint.operator})`)
        .join('\n');
      return index === 0 ? [name] : [', ', name];
    }),
    '.',
  );
}
