import { z } from 'zod';

import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

/** What an `eth_call` response carried: returned data, or the revert data of a failed call. */
export type EthCallReply = { kind: 'result'; data: string } | { kind: 'revert'; data: string };

const hexDataSchema = z.string().regex(/^0x(?:[0-9a-fA-F]{2})*$/);

const resultResponseSchema = z.looseObject({ result: hexDataSchema });
const errorResponseSchema = z.looseObject({
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }),
});

/**
 * Reads a JSON-RPC response to `eth_call`. Nodes disagree on where revert data goes: geth-style
 * nodes put the hex string in `error.data`, Hardhat-style nodes nest it as `error.data.data`;
 * both are accepted. An error without revert data (rate limit, unknown method, ...) is unexpected.
 */
export function readEthCallReply(response: unknown): EthCallReply {
  const result = resultResponseSchema.safeParse(response);
  if (result.success) {
    return { kind: 'result', data: result.data.result };
  }
  const failure = errorResponseSchema.safeParse(response);
  if (!failure.success) {
    throw new UnexpectedEthCallResponseError(
      'The eth_call response has neither a hex result nor a JSON-RPC error',
      response,
    );
  }
  const revertData = extractRevertData(failure.data.error.data);
  if (revertData === undefined) {
    const { code, message } = failure.data.error;
    throw new UnexpectedEthCallResponseError(
      `The node returned an error without revert data (${code}: ${message})`,
      response,
    );
  }
  return { kind: 'revert', data: revertData };
}

function extractRevertData(data: unknown): string | undefined {
  const direct = hexDataSchema.safeParse(data);
  if (direct.success) {
    return direct.data;
  }
  const nested = z.looseObject({ data: hexDataSchema }).safeParse(data);
  return nested.success ? nested.data.data : undefined;
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
