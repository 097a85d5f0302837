import type { RpcUrls } from '@trustpoint/verifier';

const STORAGE_KEY = 'trustpoint-verifier:rpc-urls';

/** The embedded local chain of `npm start`: the only node a fresh page can guess. */
export const DEFAULT_RPC_TEXT = '31337=http://127.0.0.1:8545';

/**
 * Reads the nodes the user trusts: one `networkId=URL` a line (or a bare URL for any network),
 * kept in order since they are tried in turn. Throws on a line that is not a URL.
 */
export function parseRpcText(text: string): RpcUrls {
  const rpc: Record<string, string[]> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\d+)\s*=\s*(.+)$/.exec(line);
    const network = match?.[1] ?? '*';
    const url = (match?.[2] ?? line).trim();
    if (!/^https?:\/\/./i.test(url)) {
      throw new Error(`"${line}" is not a node: write networkId=http(s)://… or a URL alone`);
    }
    (rpc[network] ??= []).push(url);
  }
  return rpc;
}

/** What the user typed last in this browser, else a link's `rpc` parameters, else the local chain. */
export function initialRpcText(fromLink: readonly string[]): string {
  if (fromLink.length > 0) return fromLink.join('\n');
  try {
    return localStorage.getItem(STORAGE_KEY) ?? DEFAULT_RPC_TEXT;
  } catch {
    // Storage can be denied (file:// in some browsers, private modes): the default still works.
    return DEFAULT_RPC_TEXT;
  }
}

export function rememberRpcText(text: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, text);
  } catch {
    // Not remembered: nothing else depends on it.
  }
}
