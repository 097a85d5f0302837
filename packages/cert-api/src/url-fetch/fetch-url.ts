import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createFileHasher } from '@trustpoint/domain';
import { isNonPublicAddressRefusal, publicAddressAgent } from '@trustpoint/http';
import type { UrlFetchSettings } from './url-fetch-settings.js';

/** What a URL answered, hashed as received. */
export interface FetchedUrl {
  /** Where the bytes came from in the end (differs from the requested URL after redirects). */
  finalUrl: string;
  /** The Content-Type the server sent, or null. */
  mediaType: string | null;
  size: number;
  /** `doubleHash(bytes received)`: the unsalted digest repeats and `/hash/` lookups use. */
  hash: string;
  /** `sha256(bytes received)`: the certificate's `data.fileHash`, covered by its hash. */
  fileHash: string;
}

/** Why a URL could not be certified; the message is written for the caller. */
export class UrlFetchError extends Error {
  override readonly name = 'UrlFetchError';
}

const MEDIA_TYPE_MAX_LENGTH = 256;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function refusalOf(error: unknown, settings: UrlFetchSettings, timedOut: boolean): UrlFetchError {
  if (error instanceof UrlFetchError && !timedOut) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // The agent's refusal: the address the name resolved to is not public.
  if (isNonPublicAddressRefusal(error)) {
    return new UrlFetchError(
      'The URL leads to a private, loopback, link-local or otherwise non-public address, which is not allowed',
    );
  }
  if (timedOut) {
    return new UrlFetchError(`The URL did not answer within ${String(settings.totalTimeoutMs)} ms`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UrlFetchError('The URL host name could not be resolved');
  }
  return new UrlFetchError(`The URL could not be fetched (${code ?? 'connection failed'})`);
}

/** One request through an agent that refuses non-public addresses at connect time. */
function request(
  url: URL,
  settings: UrlFetchSettings,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const agent = publicAddressAgent(url, settings);
  const get = url.protocol === 'https:' ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const req = get(url, {
      agent,
      signal,
      headers: { accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'Trustpoint' },
    });
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => {
        req.destroy(
          new UrlFetchError(
            `The URL host did not accept a connection within ${String(settings.connectTimeoutMs)} ms`,
          ),
        );
      }, settings.connectTimeoutMs);
      const clear = () => {
        clearTimeout(timer);
      };
      socket.once('connect', clear);
      socket.once('close', clear);
    });
    req.once('response', resolve);
    req.once('error', reject);
  });
}

async function hashBody(response: IncomingMessage, settings: UrlFetchSettings) {
  const tooLarge = () =>
    new UrlFetchError(`The URL answered more than ${String(settings.maxBytes)} bytes`);
  if (Number(response.headers['content-length']) > settings.maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const hasher = createFileHasher();
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).byteLength;
    if (size > settings.maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    hasher.update(chunk as Buffer);
  }
  return hasher.digest();
}

/**
 * Fetches a URL once (GET), hashing the body as it streams. Only http and https; every hop of a
 * redirect goes through the same address filter, so neither a redirect nor a DNS answer that
 * changes between checks (rebinding) reaches a private address. Connect and total timeouts and a
 * size limit bound what one request can cost. Every failure is a `UrlFetchError`.
 */
export async function fetchUrl(url: string, settings: UrlFetchSettings): Promise<FetchedUrl> {
  const abort = new AbortController();
  const deadline = setTimeout(() => {
    abort.abort();
  }, settings.totalTimeoutMs);
  try {
    let current = new URL(url);
    for (let redirects = 0; ; redirects += 1) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        throw new UrlFetchError('Only http and https URLs can be certified');
      }
      const response = await request(current, settings, abort.signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        response.resume();
        if (redirects >= settings.maxRedirects) {
          throw new UrlFetchError(
            settings.maxRedirects === 0
              ? 'The URL redirects, and redirects are not followed'
              : `The URL redirects more than ${String(settings.maxRedirects)} times`,
          );
        }
        current = new URL(location, current);
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new UrlFetchError(`The URL answered HTTP ${String(status)}, not a success`);
      }
      const { hash, fileHash, size } = await hashBody(response, settings);
      const mediaType = response.headers['content-type']?.slice(0, MEDIA_TYPE_MAX_LENGTH) ?? null;
      return { finalUrl: current.href, mediaType, size, hash, fileHash };
    }
  } catch (error) {
    throw refusalOf(error, settings, abort.signal.aborted);
  } finally {
    clearTimeout(deadline);
  }
}
