import type { JsonRpcOptions } from './json-rpc-nodes.js';

/** A JSON-RPC error answer, or a reply that is not one. */
export class JsonRpcCallError extends Error {
  override readonly name = 'JsonRpcCallError';
}

/** One JSON-RPC 2.0 call to one node: its `result`, or a JsonRpcCallError saying why not. */
export async function jsonRpcCall(
  url: string,
  method: string,
  params: readonly unknown[],
  options: JsonRpcOptions = {},
): Promise<unknown> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new JsonRpcCallError(`${error instanceof Error ? error.message : String(error)}${cause}`);
  }
  if (!response.ok) throw new JsonRpcCallError(`HTTP ${String(response.status)}`);
  let reply: unknown;
  try {
    reply = await response.json();
  } catch {
    throw new JsonRpcCallError('the answer is not JSON');
  }
  if (typeof reply !== 'object' || reply === null)
    throw new JsonRpcCallError('not a JSON-RPC answer');
  const { result, error } = reply as { result?: unknown; error?: { message?: unknown } };
  if (error !== undefined) {
    throw new JsonRpcCallError(
      `${method}: ${typeof error.message === 'string' ? error.message : 'error'}`,
    );
  }
  if (!('result' in reply)) throw new JsonRpcCallError(`${method}: no result`);
  return result;
}

export const isQuantity = (value: unknown): value is string =>
  typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value);

export const isHash32 = (value: unknown): value is string =>
  typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
