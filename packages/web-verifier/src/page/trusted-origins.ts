import {
  combineTrust,
  isLoopbackOrigin,
  normalizeOrigin,
  readTrustDocument,
  TRUST_DOCUMENT_PATH,
  trustOfDocument,
  type Trust,
  type TrustDocument,
} from '@trustpoint/verifier';
import { pageStorage } from './page-storage.js';

/**
 * The service origins the user trusts, pinned in this browser as `trustpoint trust add` pins them
 * in the CLI's trust file: the document as it was when the user trusted it.
 */
export interface PinnedOrigin {
  document: TrustDocument;
  pinnedAt: string;
  /**
   * A loopback origin: a service on this very machine (the user's own `npm start`), whose
   * development registries count here as they do for the CLI after `trustpoint start`.
   */
  local: boolean;
}

const STORAGE_KEY = 'trustpoint-verifier:trusted-origins';

/** The pinned origins; an entry that is no longer a valid document is dropped, never half read. */
export function loadPinnedOrigins(): PinnedOrigin[] {
  let text: string | null;
  try {
    text = pageStorage().getItem(STORAGE_KEY);
  } catch {
    return [];
  }
  if (text === null) return [];
  try {
    const entries = (JSON.parse(text) as { origins?: unknown }).origins;
    if (!Array.isArray(entries)) return [];
    return entries.flatMap((entry: unknown) => {
      try {
        const { document, pinnedAt } = entry as { document?: unknown; pinnedAt?: unknown };
        const read = readTrustDocument(document);
        return [
          {
            document: read,
            pinnedAt: typeof pinnedAt === 'string' ? pinnedAt : '',
            local: isLoopbackOrigin(read.origin),
          },
        ];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

export function savePinnedOrigins(origins: readonly PinnedOrigin[]): void {
  try {
    pageStorage().setItem(
      STORAGE_KEY,
      JSON.stringify({
        origins: origins.map(({ document, pinnedAt }) => ({ document, pinnedAt })),
      }),
    );
  } catch {
    // Not remembered past this page: trusted for now only.
  }
}

/** An origin as the user typed it (`certs.example.org`, `https://x/cert/v2/`), or an error. */
export function originOf(typed: string): string {
  const origin = normalizeOrigin(typed.trim());
  if (origin === undefined) throw new Error(`"${typed}" is not an http(s) origin`);
  return origin;
}

/**
 * Fetches an origin's trust document. With `sameOrigin` (what the user asked to trust), the
 * document must name that origin: a service serving another's document is not that service.
 */
export async function fetchTrustDocument(
  origin: string,
  options: { sameOrigin: boolean },
): Promise<TrustDocument> {
  const url = new URL(TRUST_DOCUMENT_PATH, origin);
  let response: Response;
  try {
    response = await fetch(url, { credentials: 'omit', redirect: 'error' });
  } catch {
    throw new Error(`${url.toString()} did not answer (or refused this page)`);
  }
  if (!response.ok) {
    throw new Error(`${url.toString()} answered ${String(response.status)}: no trust document`);
  }
  let document: TrustDocument;
  try {
    document = readTrustDocument(await response.json());
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`${url.toString()} is not a trust document: ${why}`);
  }
  if (options.sameOrigin && document.origin !== origin) {
    throw new Error(
      `${url.toString()} names the origin ${document.origin}, not ${origin}: it is not that service's own document`,
    );
  }
  return document;
}

/** The trust the pinned documents give (never a document fetched since: see the changes). */
export function trustOfPinned(origins: readonly PinnedOrigin[]): Trust {
  return combineTrust(
    ...origins.map((pinned) =>
      trustOfDocument(pinned.document, pinned.local ? { local: true } : {}),
    ),
  );
}
