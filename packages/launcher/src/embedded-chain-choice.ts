import { readFile } from 'node:fs/promises';
import { networksFileSchema } from '@trustpoint/chain';
import { HARDHAT_CHAIN_ID } from '@trustpoint/registry-abi';

/** Where the embedded chain listens (`CHAIN_HOST`, `CHAIN_PORT`). */
export interface EmbeddedChainAddress {
  host: string;
  port: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);
/** Hosts that make a server listen on every interface, loopback included. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::']);

function unbracketed(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * Whether a JSON-RPC URL reaches the embedded chain: plain http on `CHAIN_PORT`, at `CHAIN_HOST`
 * itself, or at a loopback name (`localhost`, `127.0.0.1`, `[::1]`) when the chain listens on
 * loopback or on every interface.
 */
export function isEmbeddedChainUrl(rpcUrl: string, chain: EmbeddedChainAddress): boolean {
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || Number(url.port || '80') !== chain.port) return false;
  const host = unbracketed(url.hostname);
  const chainHost = unbracketed(chain.host);
  if (host === chainHost) return true;
  return (
    LOOPBACK_HOSTS.has(host) && (LOOPBACK_HOSTS.has(chainHost) || EVERY_INTERFACE.has(chainHost))
  );
}

/**
 * What `loadNetworks` takes as `rpcHeadersFor`: the embedded chain's write credential (its
 * `writeHeaders`) for the networks that reach it (chain id 31337 at `isEmbeddedChainUrl`), none for
 * any other, so the credential never goes to another node.
 */
export function embeddedChainHeaders(
  chain: EmbeddedChainAddress,
  headers: Readonly<Record<string, string>> | undefined,
): (network: { chainId: number; rpcUrl: string }) => Readonly<Record<string, string>> | undefined {
  return (network) =>
    headers !== undefined &&
    BigInt(network.chainId) === HARDHAT_CHAIN_ID &&
    isEmbeddedChainUrl(network.rpcUrl, chain)
      ? headers
      : undefined;
}

/**
 * Whether `npm start` runs the embedded chain. Without a networks file it does: it is the only
 * network. With one, only when the file names it: an entry with the Hardhat chain id (31337)
 * whose `rpcUrl` reaches the embedded chain (`isEmbeddedChainUrl`). A 31337 entry elsewhere is
 * a node the operator runs, and the embedded chain would only be in the way. A file that cannot be
 * read or parsed answers false: loading the networks then stops start-up with the file's error.
 */
export async function wantsEmbeddedChain(
  networksFile: string | undefined,
  chain: EmbeddedChainAddress,
): Promise<boolean> {
  if (networksFile === undefined) return true;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(networksFile, 'utf8'));
  } catch {
    return false;
  }
  const parsed = networksFileSchema.safeParse(raw);
  if (!parsed.success) return false;
  return parsed.data.networks.some(
    (network) =>
      BigInt(network.chainId) === HARDHAT_CHAIN_ID && isEmbeddedChainUrl(network.rpcUrl, chain),
  );
}
