import { isHexData } from './hex.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

/** What an `eth_call` response carried: returned data, or the revert data of a failed call. */
export type EthCallReply = { kind: 'result'; data: string } | { kind: 'revert'; data: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a JSON-RPC response to `eth_call`. Nodes disagree on where revert data goes: geth-style
 * nodes put the hex string in `error.data`, Hardhat-style nodes nest it as `error.data.data`;
 * both are accepted. An error without revert data (rate limit, unknown method, ...) is unexpected.
 */
export function readEthCallReply(response: unknown): EthCallReply {
  if (isObject(response) && isHexData(response.result)) {
    return { kind: 'result', data: response.result };
  }
  const error = isObject(response) ? response.error : undefined;
  if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
    throw new UnexpectedEthCallResponseError(
      'The eth_call response has neither a hex result nor a JSON-RPC error',
      response,
    );
  }
  const revertData = extractRevertData(error.data);
  if (revertData === undefined) {
    throw new UnexpectedEthCallResponseError(
      `The node returned an error without revert data (${error.code}: ${error.message})`,
      response,
    );
  }
  return { kind: 'revert', data: revertData };
}

function extractRevertData(data: unknown): string | undefined {
  if (isHexData(data)) return data;
  return isObject(data) && isHexData(data.data) ? data.data : undefined;
}

/**
 * Decodes a lookup response: the not-found revert (exactly the selector, no arguments) becomes
 * `{found: false}`, a result goes through `decodeResult`, anything else throws
 * UnexpectedEthCallResponseError.
 */
export function decodeLookupResponse<Found>(
  response: unknown,
  notFoundSelector: string,
  decodeResult: (data: string) => Found,
): Found | { found: false } {
  const reply = readEthCallReply(response);
  if (reply.kind === 'result') {
    return decodeResult(reply.data);
  }
  if (reply.data.toLowerCase() === notFoundSelector) {
    return { found: false };
  }
  throw new UnexpectedEthCallResponseError(
    `The call reverted with unexpected data ${reply.data}`,
    response,
  );
}
