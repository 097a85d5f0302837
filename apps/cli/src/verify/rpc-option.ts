import { readFile } from 'node:fs/promises';
import { localChainUrlOf } from '@trustpoint/launcher/launcher-config';
import { ANY_NETWORK, type RpcUrls } from '@trustpoint/verifier';
import { usageError } from '../cli-error.js';

/** The network of the local chain `trustpoint start` runs. */
export const LOCAL_CHAIN_ID = '31337';

/**
 * The local chain's node as `trustpoint start` and the roles run it (`CHAIN_HOST`, 127.0.0.1;
 * `CHAIN_PORT`, 8545): asked for network 31337 only when nothing names a node for it
 * (`trustpoint start` pins its own chain's node, so this is a last guess). A bad `CHAIN_PORT` is
 * a usage error, as it stops `start`.
 */
export function localChainUrl(env: NodeJS.ProcessEnv): string {
  try {
    return localChainUrlOf(env);
  } catch (error) {
    throw usageError((error as Error).message);
  }
}

/** Collects repeated `--rpc` values in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * `--rpc URL` (any network) or `--rpc <networkId>=URL`, repeatable, all asked (their answers must agree);
 * `TRUSTPOINT_RPC` holds the same, comma-separated, and counts only when no `--rpc` is given.
 * The embedded chain's default node is added for network 31337 when nothing else names it, unless
 * `guessLocalChain` is false (public endpoints given for that chain: they are asked instead).
 */
export function rpcUrlsOf(
  values: readonly string[],
  env: NodeJS.ProcessEnv,
  fromFile: readonly { networkId: string; url: string }[] = [],
  guessLocalChain = true,
): RpcUrls {
  const given =
    values.length > 0
      ? values
      : (env.TRUSTPOINT_RPC ?? '')
          .split(',')
          .map((value) => value.trim())
          .filter((value) => value !== '');
  const urls: Record<string, string[]> = {};
  for (const value of given) {
    const match = /^(\d+)=(.+)$/.exec(value);
    const [networkId, url] = match
      ? [match[1] as string, match[2] as string]
      : [ANY_NETWORK, value];
    assertHttpUrl(url, value);
    (urls[networkId] ??= []).push(url);
  }
  // A networks file's nodes are asked with those of --rpc; their answers must agree.
  for (const { networkId, url } of fromFile) {
    assertHttpUrl(url, `${networkId}=${url}`);
    (urls[networkId] ??= []).push(url);
  }
  if (guessLocalChain && urls[LOCAL_CHAIN_ID] === undefined && urls[ANY_NETWORK] === undefined) {
    urls[LOCAL_CHAIN_ID] = [localChainUrl(env)];
  }
  return urls;
}

function assertHttpUrl(url: string, given: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`--rpc takes URL or <networkId>=URL, not ${given}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw usageError(`--rpc must be an http(s) URL: ${given}`);
  }
}

/** What a networks file the user keeps says about each network: its nodes and registries. */
export interface TrustedNetwork {
  networkId: string;
  urls: string[];
  trustPointRegistry?: string;
  evidenceRepository?: string;
  statusRegistry?: string;
  /** Block 0's hash: a node of another chain with the same id is refused. */
  genesisHash?: string;
}

/**
 * A networks file the user keeps (the service's own format, `packages/chain`):
 * `{"networks": [{"networkId": "11155111", "rpcUrl": "https://...", "trustPointRegistry": "0x..."}]}`,
 * `rpcUrls` for several nodes. Keys never live in that file; only these members are read.
 */
export async function readNetworksFile(
  path: string,
  source = `--networks ${path}`,
): Promise<TrustedNetwork[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    throw usageError(`${source}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const networks = (json as { networks?: unknown } | null)?.networks;
  if (!Array.isArray(networks)) throw usageError(`${source}: no "networks" array`);
  return networks.map((entry: unknown, index) => {
    const {
      networkId,
      rpcUrl,
      rpcUrls,
      trustPointRegistry,
      evidenceRepository,
      statusRegistry,
      genesisHash,
    } = (entry ?? {}) as Record<string, unknown>;
    const id = typeof networkId === 'number' ? String(networkId) : networkId;
    if (typeof id !== 'string' || !/^\d+$/.test(id)) {
      throw usageError(`${source}: networks[${index}].networkId is not a network id`);
    }
    if (
      genesisHash !== undefined &&
      (typeof genesisHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(genesisHash))
    ) {
      throw usageError(`${source}: networks[${index}].genesisHash is not a block hash`);
    }
    const urls = [rpcUrl, ...(Array.isArray(rpcUrls) ? (rpcUrls as unknown[]) : [])].filter(
      (url): url is string => typeof url === 'string',
    );
    return {
      networkId: id,
      urls,
      ...(typeof trustPointRegistry === 'string' ? { trustPointRegistry } : {}),
      ...(typeof evidenceRepository === 'string' ? { evidenceRepository } : {}),
      ...(typeof statusRegistry === 'string' ? { statusRegistry } : {}),
      ...(typeof genesisHash === 'string' ? { genesisHash } : {}),
    };
  });
}

/**
 * `--genesis <networkId>=<block hash>` (repeatable) and a networks file's `genesisHash`: block 0
 * of the chain the user's pins of that network are on.
 */
export function genesisHashesOf(
  values: readonly string[],
  fromFile: readonly TrustedNetwork[],
): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const { networkId, genesisHash } of fromFile) {
    if (genesisHash !== undefined) hashes[networkId] = genesisHash;
  }
  for (const value of values) {
    const match = /^(\d+)=(0x[0-9a-fA-F]{64})$/.exec(value);
    if (!match) throw usageError(`--genesis takes <networkId>=<0x block hash>, not ${value}`);
    hashes[match[1] as string] = match[2] as string;
  }
  return hashes;
}

/**
 * `--contract <networkId>=<address>` (repeatable) and a networks file's registries: registries the
 * user pins. Undefined when none is given.
 */
export function trustedContractsOf(
  values: readonly string[],
  fromFile: readonly { networkId: string; address: string | undefined }[],
  flag = '--contract',
): Record<string, string[]> | undefined {
  const contracts: Record<string, string[]> = {};
  for (const value of values) {
    const match = /^(\d+)=(0x[0-9a-fA-F]{40})$/.exec(value);
    if (!match) throw usageError(`${flag} takes <networkId>=<0x address>, not ${value}`);
    (contracts[match[1] as string] ??= []).push(match[2] as string);
  }
  for (const { networkId, address } of fromFile) {
    if (address !== undefined) (contracts[networkId] ??= []).push(address);
  }
  return Object.keys(contracts).length === 0 ? undefined : contracts;
}
