import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';

/**
 * Resolves the TXT records of a name, each record's strings joined into one text. Resolves to an
 * empty list when the name has none (or does not exist); rejects when the DNS could not answer.
 * Node: `dns.promises.Resolver`; browsers: `dnsOverHttpsTxt`.
 */
export type TxtResolver = (name: string) => Promise<string[]>;

/**
 * A public DNS-over-HTTPS resolver with the JSON API (`?name=&type=TXT`, answers in the
 * `application/dns-json` format) that any page may call (CORS): the pages' default.
 */
export const DEFAULT_DNS_OVER_HTTPS_RESOLVER = 'https://dns.google/resolve';

const TXT = 16;
const NXDOMAIN = 3;

/** A TXT record's `data` in the JSON API: one or more quoted strings, or the bare text. */
function textOf(data: string): string {
  const quoted = [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)];
  if (quoted.length === 0) return data;
  return quoted
    .map((match) =>
      (match[1] ?? '').replace(/\\(\d{3}|.)/g, (_, escaped: string) =>
        escaped.length === 3 ? String.fromCharCode(Number(escaped)) : escaped,
      ),
    )
    .join('');
}

/**
 * TXT lookups through a DNS-over-HTTPS resolver's JSON API (Google's `/resolve`, Cloudflare's
 * `/dns-query`): only `fetch`, so it runs in a browser. The resolver sees the name asked for.
 */
export function dnsOverHttpsTxt(resolverUrl: string, options: JsonRpcOptions = {}): TxtResolver {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return async (name) => {
    const url = new URL(resolverUrl);
    url.searchParams.set('name', name);
    url.searchParams.set('type', 'TXT');
    const response = await fetchImpl(url.toString(), {
      headers: { accept: 'application/dns-json' },
      credentials: 'omit',
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    if (!response.ok) {
      throw new Error(`the resolver ${url.origin} answered HTTP ${String(response.status)}`);
    }
    const answer = (await response.json()) as {
      Status?: unknown;
      Answer?: { type?: unknown; data?: unknown }[];
    };
    if (answer.Status === NXDOMAIN) return [];
    if (answer.Status !== 0) {
      throw new Error(`the resolver ${url.origin} answered DNS status ${String(answer.Status)}`);
    }
    return (answer.Answer ?? []).flatMap((record) =>
      record.type === TXT && typeof record.data === 'string' ? [textOf(record.data)] : [],
    );
  };
}
