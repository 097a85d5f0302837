import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  combineTrust,
  LOCAL_NODES_PATH,
  normalizeOrigin,
  readLocalNodes,
  readTrustDocument,
  TRUST_DOCUMENT_PATH,
  trustOfDocument,
  type Trust,
  type TrustDocument,
} from '@trustpoint/verifier';
import { usageError } from '../cli-error.js';

/** One service origin the user trusts, as pinned when they trusted it. */
export interface PinnedOrigin {
  document: TrustDocument;
  /** Pinned by this machine's own `trustpoint start`: its development registries count here. */
  local?: boolean;
  /** Nodes to ask for its networks (a local instance's chain), per network id. */
  rpc?: Record<string, string[]>;
  pinnedAt: string;
}

/** What the trust file holds: the origins the user trusts. Registries come only from these. */
export interface TrustFile {
  origins: PinnedOrigin[];
}

/**
 * `TRUSTPOINT_TRUST_FILE`, else `trust.json` under `$XDG_CONFIG_HOME/trustpoint` (default
 * `~/.config/trustpoint`): the verifiers' `known_hosts`.
 */
export function trustFilePath(env: NodeJS.ProcessEnv): string {
  if (env.TRUSTPOINT_TRUST_FILE) return env.TRUSTPOINT_TRUST_FILE;
  const config = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config');
  return join(config, 'trustpoint', 'trust.json');
}

export async function readTrustFile(path: string): Promise<TrustFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { origins: [] };
    throw error;
  }
  // An empty file (or /dev/null) trusts nothing, as a missing one does.
  if (text.trim() === '') return { origins: [] };
  try {
    const json = JSON.parse(text) as { origins?: unknown };
    if (!Array.isArray(json.origins)) throw new Error('no "origins" array');
    return {
      origins: json.origins.map((entry: unknown) => {
        const pinned = entry as PinnedOrigin;
        return { ...pinned, document: readTrustDocument(pinned.document) };
      }),
    };
  } catch (error) {
    throw usageError(
      `the trust file ${path} is not readable (${error instanceof Error ? error.message : String(error)}): fix or remove it`,
    );
  }
}

/** Written whole and renamed into place, so a crash never leaves half a file. */
export async function writeTrustFile(path: string, file: TrustFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** The nodes pinned with these origins, each with its network, in the order they are pinned. */
export function pinnedNodes(
  origins: readonly PinnedOrigin[],
): { networkId: string; url: string }[] {
  return origins.flatMap((origin) =>
    Object.entries(origin.rpc ?? {}).flatMap(([networkId, urls]) =>
      urls.map((url) => ({ networkId, url })),
    ),
  );
}

/** The trust a file gives, and the nodes it names. */
export function trustOfFile(file: TrustFile): {
  trust: Trust;
  nodes: { networkId: string; url: string }[];
} {
  return {
    trust: combineTrust(
      ...file.origins.map((origin) =>
        trustOfDocument(origin.document, origin.local === true ? { local: true } : {}),
      ),
    ),
    nodes: pinnedNodes(file.origins),
  };
}

/** An origin as the user typed it, reduced to scheme, host and port; a usage error otherwise. */
export function originOf(given: string): string {
  const origin = normalizeOrigin(given);
  if (origin === undefined) throw usageError(`${given} is not an http(s) origin`);
  return origin;
}

/** Fetches an origin's trust document and checks that it names that origin. */
export async function fetchTrustDocument(origin: string): Promise<TrustDocument> {
  const url = new URL(TRUST_DOCUMENT_PATH, origin);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
  } catch (error) {
    throw usageError(
      `${url.toString()} did not answer (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (!response.ok) {
    throw usageError(
      `${url.toString()} answered ${String(response.status)}: no trust document there`,
    );
  }
  let document: TrustDocument;
  try {
    document = readTrustDocument(await response.json());
  } catch (error) {
    throw usageError(
      `${url.toString()} is not a trust document: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (document.origin !== origin) {
    throw usageError(
      `${url.toString()} names the origin ${document.origin}, not ${origin}: it is not that service's own document`,
    );
  }
  return document;
}

/**
 * The nodes a local instance names for its chain (`LOCAL_NODES_PATH`, answered only on its own
 * machine), loopback ones only; none when it does not answer.
 */
export async function fetchLocalNodes(origin: string): Promise<Record<string, string[]>> {
  try {
    const response = await fetch(new URL(LOCAL_NODES_PATH, origin), {
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
    return response.ok ? readLocalNodes(await response.json()) : {};
  } catch {
    return {};
  }
}
