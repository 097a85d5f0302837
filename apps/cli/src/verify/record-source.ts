import { readFile, stat } from 'node:fs/promises';
import { AmbiguousJsonError, parseJsonStrict } from '@trustpoint/verifier';
import { CliError, usageError } from '../cli-error.js';
import { exitCodeOfStatus } from '../exit-codes.js';
import { deadlineSignal, unreachableError } from '../service-timeout.js';

/** Where the service is, for commands that may read a public record from it (never to verify it). */
export interface ServiceOptions {
  url?: string;
  token?: string;
  pin?: string;
}

/**
 * The certificate API's origin: `--url`, `TRUSTPOINT_URL`, or the local one. Given as the page
 * takes it too: an origin, or the API's base (`.../cert/v2`, which is dropped).
 */
export function serviceOrigin(options: ServiceOptions, env: NodeJS.ProcessEnv): string {
  const url =
    options.url ?? env.TRUSTPOINT_URL ?? `http://127.0.0.1:${env.CERT_API_PORT ?? '8080'}`;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw usageError(`--url must be an http(s) URL: ${url}`);
  }
  return url.replace(/\/+$/, '').replace(/\/cert\/v2$/i, '');
}

/** Whether `argument` names a file to read rather than an identifier to look up. */
export async function isFile(argument: string): Promise<boolean> {
  try {
    return (await stat(argument)).isFile();
  } catch {
    return false;
  }
}

export async function readJsonFile(path: string): Promise<unknown> {
  // A byte order mark some editors write is no part of the JSON (RFC 8259 §8.1 lets a reader skip it).
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  try {
    return parseJsonStrict(text);
  } catch (error) {
    if (error instanceof AmbiguousJsonError) {
      throw usageError(
        `${path} is refused: ${error.message}, and another reader could show another value`,
      );
    }
    throw usageError(`${path} is not JSON: ${error instanceof Error ? error.message : ''}`);
  }
}

/**
 * GETs JSON from the service within `timeoutMs` (`serviceTimeoutMs`); failures become the exit
 * codes of `trustpoint` (404: 4, ..., no answer in time: 6).
 */
export async function fetchJson(url: URL, timeoutMs: number): Promise<unknown> {
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/json' },
      signal: deadlineSignal(timeoutMs),
    });
    body = await response.json().catch((error: unknown) => {
      // A body that stops coming is no answer in time; one that is not JSON, an odd answer.
      if (error instanceof Error && error.name === 'TimeoutError') throw error;
      return undefined;
    });
  } catch (reason) {
    throw unreachableError(url.origin, reason);
  }
  if (!response.ok) {
    const message =
      typeof body === 'object' && body !== null && 'message' in body
        ? String(body.message)
        : response.statusText;
    throw new CliError(
      `the service answered ${response.status} for ${url.pathname}: ${message}`,
      exitCodeOfStatus(response.status),
      body,
    );
  }
  return body;
}
