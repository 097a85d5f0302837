import type { JsonRpcOptions } from '../rpc/json-rpc-nodes.js';
import {
  readTrustDocument,
  TRUST_DOCUMENT_PATH,
  TrustDocumentError,
  type TrustDocument,
} from './trust-document.js';

/** A trust document is a few kilobytes; a larger answer is not one, and is not read to its end. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * Reads `<origin>/.well-known/trustpoint.json` and checks that it is that origin's own document.
 * No redirect is followed and no credential is sent; any failure is a `TrustDocumentError` saying
 * why. The caller decides whether the origin may be fetched at all (`isFetchableNamedOrigin`).
 */
export async function fetchPublishedTrustDocument(
  origin: string,
  options: JsonRpcOptions = {},
): Promise<TrustDocument> {
  const url = new URL(TRUST_DOCUMENT_PATH, origin).toString();
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      redirect: 'error',
      credentials: 'omit',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new TrustDocumentError(
      `${url} did not answer (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (!response.ok) {
    throw new TrustDocumentError(`${url} answered HTTP ${String(response.status)}`);
  }
  const text = await boundedText(response, url);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TrustDocumentError(`${url} is not JSON`);
  }
  let document: TrustDocument;
  try {
    document = readTrustDocument(json);
  } catch (error) {
    throw new TrustDocumentError(
      `${url} is not a trust document: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (document.origin !== origin) {
    throw new TrustDocumentError(
      `${url} names the origin ${document.origin}: it is not that origin's own document`,
    );
  }
  return document;
}

async function boundedText(response: Response, url: string): Promise<string> {
  const tooLarge = () =>
    new TrustDocumentError(`${url} is larger than ${String(MAX_DOCUMENT_BYTES)} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > MAX_DOCUMENT_BYTES) throw tooLarge();
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    // Node's types leave a body's chunks untyped; they are bytes in every runtime.
    const value = chunk.value as Uint8Array;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
