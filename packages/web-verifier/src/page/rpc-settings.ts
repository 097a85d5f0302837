import type { RpcUrls } from '@trustpoint/verifier';
import { pageStorage } from './page-storage.js';

const STORAGE_KEY = 'trustpoint-verifier:rpc-urls';

/** One node line: `networkId=URL`, or a URL alone for any network. */
function parseLine(line: string): { network: string; url: string } {
  const match = /^(\d+)\s*=\s*(.+)$/.exec(line);
  const network = match?.[1] ?? '*';
  const url = (match?.[2] ?? line).trim();
  if (!/^https?:\/\/./i.test(url)) {
    throw new Error(`"${line}" is not a node: write networkId=http(s)://… or a URL alone`);
  }
  return { network, url };
}

const meaningfulLines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/**
 * Reads the nodes the user trusts: one `networkId=URL` a line (or a bare URL for any network),
 * all asked, their answers compared (they must agree). Throws on a line that is not a URL.
 */
export function parseRpcText(text: string): RpcUrls {
  const rpc: Record<string, string[]> = {};
  for (const line of meaningfulLines(text)) {
    const { network, url } = parseLine(line);
    (rpc[network] ??= []).push(url);
  }
  return rpc;
}

/** Nodes given per network as lines of the list (`networkId=URL`). */
export function rpcLinesOf(nodes: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(nodes).flatMap(([network, urls]) =>
    urls.map((url) => (network === '*' ? url : `${network}=${url}`)),
  );
}

/**
 * The proposed node lines (a link's `rpc`, the instance's node) that are valid and not in the
 * user's list yet: what the page offers, never applies by itself.
 */
export function newNodeLines(current: string, proposed: readonly string[]): string[] {
  const known = new Set<string>();
  for (const line of meaningfulLines(current)) {
    try {
      const { network, url } = parseLine(line);
      known.add(`${network}=${url}`);
    } catch {
      // A line the user is still typing: it proposes nothing and hides nothing.
    }
  }
  const fresh: string[] = [];
  for (const line of proposed.map((text) => text.trim())) {
    let parsed: { network: string; url: string };
    try {
      parsed = parseLine(line);
    } catch {
      continue;
    }
    const key = `${parsed.network}=${parsed.url}`;
    if (!known.has(key)) {
      known.add(key);
      fresh.push(line);
    }
  }
  return fresh;
}

/** The nodes this browser remembers, or undefined when the user never verified here. */
export function savedRpcText(): string | undefined {
  try {
    return pageStorage().getItem(STORAGE_KEY) ?? undefined;
  } catch {
    // Storage can be denied (file:// in some browsers, private modes): nothing is remembered.
    return undefined;
  }
}

export function rememberRpcText(text: string): void {
  try {
    pageStorage().setItem(STORAGE_KEY, text);
  } catch {
    // Not remembered: nothing else depends on it.
  }
}
