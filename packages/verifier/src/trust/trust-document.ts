import { EVM_ADDRESS_PATTERN } from '../chain/eth-call-request.js';
import { REGISTRY_KINDS, type PinnedNetwork, type RegistryKind, type Trust } from './trust.js';

/**
 * The trust document a Trustpoint service publishes, without a token, at
 * `<origin>/.well-known/trustpoint.json`: its display name and, per network, the chain id, the
 * genesis hash and every registry it has used with the blocks each was current in. A verifier
 * that trusts the origin pins this document; a later change is reported, not silently taken.
 */
export interface TrustDocument {
  /** Format marker and version. */
  trustpoint: typeof TRUST_DOCUMENT_FORMAT;
  /** The https origin that publishes it (or, for a local instance, its loopback origin). */
  origin: string;
  /** The service's display name: the operator, not the issuer of any one certificate. */
  name: string;
  networks: TrustDocumentNetwork[];
}

export interface TrustDocumentNetwork {
  networkId: string;
  name?: string;
  chainId: number;
  genesisHash: string;
  registries: { kind: RegistryKind; address: string; fromBlock?: number; toBlock?: number }[];
}

export const TRUST_DOCUMENT_FORMAT = 'trust-document/1';
export const TRUST_DOCUMENT_PATH = '/.well-known/trustpoint.json';

export class TrustDocumentError extends Error {
  override readonly name = 'TrustDocumentError';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isBlock = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const GENESIS_HASH = /^0x[0-9a-f]{64}$/;

/** Reads a trust document strictly: anything malformed is refused, never half taken. */
export function readTrustDocument(json: unknown): TrustDocument {
  if (!isObject(json)) throw new TrustDocumentError('A trust document is a JSON object');
  if (json.trustpoint !== TRUST_DOCUMENT_FORMAT) {
    throw new TrustDocumentError(`Not a ${TRUST_DOCUMENT_FORMAT} document`);
  }
  const { origin, name, networks } = json;
  if (typeof origin !== 'string' || normalizeOrigin(origin) !== origin) {
    throw new TrustDocumentError('origin must be an origin: scheme, host and port only');
  }
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new TrustDocumentError('name must be a text of 1 to 200 characters');
  }
  if (!Array.isArray(networks)) throw new TrustDocumentError('networks must be an array');
  return {
    trustpoint: TRUST_DOCUMENT_FORMAT,
    origin,
    name,
    networks: networks.map((entry: unknown, index) => {
      const at = `networks[${String(index)}]`;
      if (!isObject(entry)) throw new TrustDocumentError(`${at} must be an object`);
      const networkId =
        typeof entry.networkId === 'number' ? String(entry.networkId) : entry.networkId;
      if (typeof networkId !== 'string' || !/^[1-9][0-9]{0,15}$/.test(networkId)) {
        throw new TrustDocumentError(`${at}.networkId must be a network id`);
      }
      if (!isBlock(entry.chainId) || entry.chainId === 0) {
        throw new TrustDocumentError(`${at}.chainId must be a positive integer`);
      }
      if (typeof entry.genesisHash !== 'string' || !GENESIS_HASH.test(entry.genesisHash)) {
        throw new TrustDocumentError(`${at}.genesisHash must be 0x and 64 lowercase hex`);
      }
      if (!Array.isArray(entry.registries)) {
        throw new TrustDocumentError(`${at}.registries must be an array`);
      }
      return {
        networkId,
        ...(typeof entry.name === 'string' ? { name: entry.name } : {}),
        chainId: entry.chainId,
        genesisHash: entry.genesisHash,
        registries: entry.registries.map((registry: unknown, position) => {
          const where = `${at}.registries[${String(position)}]`;
          if (!isObject(registry)) throw new TrustDocumentError(`${where} must be an object`);
          const { kind, address, fromBlock, toBlock } = registry;
          if (!REGISTRY_KINDS.includes(kind as RegistryKind)) {
            throw new TrustDocumentError(
              `${where}.kind must be one of ${REGISTRY_KINDS.join(', ')}`,
            );
          }
          if (typeof address !== 'string' || !EVM_ADDRESS_PATTERN.test(address)) {
            throw new TrustDocumentError(`${where}.address must be a contract address`);
          }
          if (fromBlock !== undefined && fromBlock !== null && !isBlock(fromBlock)) {
            throw new TrustDocumentError(`${where}.fromBlock must be a block number`);
          }
          if (toBlock !== undefined && toBlock !== null && !isBlock(toBlock)) {
            throw new TrustDocumentError(`${where}.toBlock must be a block number`);
          }
          return {
            kind: kind as RegistryKind,
            address,
            ...(isBlock(fromBlock) ? { fromBlock } : {}),
            ...(isBlock(toBlock) ? { toBlock } : {}),
          };
        }),
      };
    }),
  };
}

/**
 * The trust a document gives, once its origin is trusted: its networks and registries, and its
 * origin as an issuer (certificates naming it can be verified).
 */
export function trustOfDocument(document: TrustDocument, options: { local?: boolean } = {}): Trust {
  return {
    origins: [document.origin],
    networks: document.networks.map((network): PinnedNetwork => ({
      networkId: network.networkId,
      chainId: network.chainId,
      genesisHash: network.genesisHash,
      registries: network.registries,
      pinnedBy: document.origin,
      ...(options.local === true ? { local: true } : {}),
    })),
  };
}

/**
 * An origin as users give it (`https://Certs.Example.org/cert/v2/`, `certs.example.org`) reduced to
 * scheme, host (lowercase, punycode) and port; undefined when it is not an http(s) URL.
 */
export function normalizeOrigin(given: string): string | undefined {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `https://${given}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.origin;
}

/**
 * Whether an origin may be fetched because a certificate names it: only https to a public name.
 * An http, loopback or private origin named in a certificate is never fetched (the user may still
 * trust one explicitly, e.g. their own local instance).
 */
export function isFetchableNamedOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:') return false;
  // A fully qualified name's trailing dot names the same host (`localhost.` is localhost).
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return false;
  if (host.endsWith('.internal') || !host.includes('.')) return false;
  if (/^[0-9.]+$/.test(host)) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return !(
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  // IPv6 literals: never fetched because a certificate names them.
  return !host.includes(':');
}

/** How a freshly fetched document differs from the pinned one, as `known_hosts` reports. */
export interface TrustDocumentChange {
  kind: 'networkRemoved' | 'chainChanged' | 'registryRemoved' | 'registryChanged' | 'registryAdded';
  networkId: string;
  detail: string;
  /** For `registryAdded`: the new registry (counts only once announced on chain). */
  registry?: { kind: RegistryKind; address: string };
}

/**
 * Compares a pinned document with a fetched one. Only additions of registries can ever be taken
 * (and only when a pinned registry announces them on chain); everything else is a change the
 * user must look at, as an SSH host key that changed.
 */
export function compareTrustDocuments(
  pinned: TrustDocument,
  fetched: TrustDocument,
): TrustDocumentChange[] {
  const changes: TrustDocumentChange[] = [];
  for (const was of pinned.networks) {
    const now = fetched.networks.find((network) => network.networkId === was.networkId);
    if (now === undefined) {
      changes.push({
        kind: 'networkRemoved',
        networkId: was.networkId,
        detail: `network ${was.networkId} is no longer published`,
      });
      continue;
    }
    if (now.chainId !== was.chainId || now.genesisHash !== was.genesisHash) {
      changes.push({
        kind: 'chainChanged',
        networkId: was.networkId,
        detail: `network ${was.networkId} now names chain ${String(now.chainId)} with genesis ${now.genesisHash}, pinned: chain ${String(was.chainId)} with genesis ${was.genesisHash}`,
      });
    }
    for (const registry of was.registries) {
      const same = now.registries.find(
        (candidate) =>
          candidate.kind === registry.kind &&
          candidate.address.toLowerCase() === registry.address.toLowerCase(),
      );
      if (same === undefined) {
        changes.push({
          kind: 'registryRemoved',
          networkId: was.networkId,
          detail: `the ${registry.kind} ${registry.address} is no longer published`,
        });
      } else if (
        same.fromBlock !== registry.fromBlock ||
        (registry.toBlock !== undefined && same.toBlock !== registry.toBlock)
      ) {
        changes.push({
          kind: 'registryChanged',
          networkId: was.networkId,
          detail: `the blocks of the ${registry.kind} ${registry.address} changed`,
        });
      }
    }
    for (const registry of now.registries) {
      const known = was.registries.some(
        (candidate) =>
          candidate.kind === registry.kind &&
          candidate.address.toLowerCase() === registry.address.toLowerCase(),
      );
      if (!known) {
        changes.push({
          kind: 'registryAdded',
          networkId: was.networkId,
          detail: `a new ${registry.kind} ${registry.address} is published`,
          registry: { kind: registry.kind, address: registry.address },
        });
      }
    }
  }
  return changes;
}
