/** Where the certificate comes from: a JSON file the user gives, or the service by certID. */
import { AmbiguousJsonError, parseJsonStrict, unwrapEnvelope } from '@trustpoint/verifier';

/**
 * The certificate API's base URL (ending in `/`) from what the user typed: an API base
 * (`…/cert/v2`) or a bare origin, to which the default mount `/cert/v2/` is added.
 */
export function apiBaseOf(typed: string): URL {
  const url = new URL(typed.trim());
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/cert/v2/';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url;
}

/** The API this page is served by (`/cert/v2/verify/` → `/cert/v2/`), or none from disk. */
export function servingApiBase(location: Location): string {
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return '';
  return new URL('../', location.href).toString();
}

export async function readJsonFile(file: Blob): Promise<unknown> {
  const text = await file.text();
  try {
    return parseJsonStrict(text);
  } catch (error) {
    if (error instanceof AmbiguousJsonError) {
      throw new Error(
        `The certificate file is refused: ${error.message}, and another reader could show another value`,
      );
    }
    throw new Error('The certificate file is not JSON: give the JSON the certificate API returned');
  }
}

interface ErrorBody {
  message?: unknown;
}

/** An error answer's body, for its message only: nothing in it is verified. */
function lenientJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** GET /certificates/certID/{certID}: a public certificate, read without a token. */
export async function fetchCertificate(apiBase: URL, certID: string): Promise<unknown> {
  const url = new URL(`certificates/certID/${encodeURIComponent(certID)}`, apiBase);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
  } catch {
    throw new Error(`The service at ${apiBase.toString()} did not answer (or refused this page)`);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const error = lenientJson(text) as ErrorBody | undefined;
    const message = typeof error?.message === 'string' ? `: ${error.message}` : '';
    throw new Error(`The service answered ${String(response.status)}${message}`);
  }
  // Read as a file is: a member named twice verifies here and shows the other value elsewhere.
  let body: unknown;
  try {
    body = parseJsonStrict(text);
  } catch (error) {
    if (error instanceof AmbiguousJsonError) {
      throw new Error(
        `The certificate the service answered is refused: ${error.message}, and another reader could show another value`,
      );
    }
    body = undefined;
  }
  // A forger's service answers a look-alike of its own (another certID, a genuine record) or an
  // asset: it would be verified under the certID the link names.
  const answered = unwrapEnvelope(body) as { certID?: unknown } | null;
  const answeredId =
    typeof answered === 'object' && answered !== null && typeof answered.certID === 'string'
      ? answered.certID
      : undefined;
  if (answeredId !== certID) {
    throw new Error(
      answeredId === undefined
        ? `The service answered something else than a certificate when asked for ${certID}: nothing is verified`
        : `The service answered certificate ${answeredId} when asked for ${certID}: not the certificate asked for, nothing is verified`,
    );
  }
  return body;
}

/** The service's public key set, to check qualified signatures; none when it cannot be read. */
export async function fetchJwks(apiBase: URL): Promise<unknown> {
  try {
    const response = await fetch(new URL('.well-known/jwks.json', apiBase), {
      credentials: 'omit',
    });
    return response.ok ? ((await response.json()) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

export interface NetworkInfo {
  networkId: number;
  name?: string;
  explorerUrl?: string | null;
}

/** GET /networks: names and explorers for the links. Optional: links are left out without it. */
export async function fetchNetworks(apiBase: URL): Promise<NetworkInfo[]> {
  try {
    const response = await fetch(new URL('networks', apiBase), { credentials: 'omit' });
    if (!response.ok) return [];
    const body = (await response.json()) as { data?: { networks?: NetworkInfo[] } };
    return body.data?.networks ?? [];
  } catch {
    return [];
  }
}
