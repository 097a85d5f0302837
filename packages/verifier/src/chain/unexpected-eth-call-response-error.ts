/**
 * An `eth_call` reply that is neither a well-formed result nor the contract's not-found revert:
 * another revert, a node error, an empty result (no contract at the address) or malformed JSON.
 * Kept distinct so that such a reply is never reported as "not found".
 */
export class UnexpectedEthCallResponseError extends Error {
  override readonly name = 'UnexpectedEthCallResponseError';

  constructor(
    message: string,
    readonly received: unknown,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
