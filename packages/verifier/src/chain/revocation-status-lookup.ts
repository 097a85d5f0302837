import { AbiDecodingError, decodeWords, encodeStringCall } from './abi-encoding.js';
import { readEthCallReply } from './eth-call-reply.js';
import { ethCallRequest, type EthCallRequest } from './eth-call-request.js';
import { REVOCATION_OF_SELECTOR } from './selectors.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

/**
 * A certificate's revocation status with one `eth_call` from its certID alone:
 * `revocationOf(certId)` of the network's status registry (`TrustPointStatusRegistry`).
 */
export interface RevocationStatus {
  /** A lookup always answers; `found` only fits the node-reading helpers' shape. */
  found: true;
  revoked: boolean;
  /** The Revocation trustpoint's timestamp (ms), as the service claims it; 0 when not revoked. */
  timestamp: number;
  /** When the chain recorded the revocation: its block's timestamp in ms; 0 when not revoked. */
  recordedAt: number;
}

const UINT64_MAX = (1n << 64n) - 1n;

/** Call data of `revocationOf(certId)`. */
export function encodeRevocationOfCall(certId: string): string {
  return encodeStringCall(REVOCATION_OF_SELECTOR, certId);
}

/** The whole JSON-RPC body to POST to a node to read a certificate's revocation status. */
export function revocationOfRequest(input: {
  statusRegistry: string;
  certId: string;
  id?: number | string;
}): EthCallRequest {
  return ethCallRequest(
    { to: input.statusRegistry, data: encodeRevocationOfCall(input.certId) },
    { id: input.id },
  );
}

/** Decodes the `result` of a successful `revocationOf` call. */
export function decodeRevocationOfResult(data: string): RevocationStatus {
  let words: bigint[];
  try {
    words = decodeWords(data, 3);
  } catch (error) {
    const reason = error instanceof AbiDecodingError ? error.message : 'not ABI data';
    throw new UnexpectedEthCallResponseError(
      `The result is not an ABI-encoded (bool, uint64, uint64): ${reason}`,
      data,
      { cause: error },
    );
  }
  const [revoked, timestamp, recordedAt] = words as [bigint, bigint, bigint];
  if (revoked > 1n || timestamp > UINT64_MAX || recordedAt > UINT64_MAX) {
    throw new UnexpectedEthCallResponseError('The result is out of its types’ range', data);
  }
  const isRevoked = revoked === 1n;
  // A revocation has both times; none has neither. Anything else is not this contract.
  if (
    isRevoked !== (timestamp !== 0n && recordedAt !== 0n) ||
    (!isRevoked && timestamp + recordedAt !== 0n)
  ) {
    throw new UnexpectedEthCallResponseError('The result is not a revocation status', data);
  }
  if (
    timestamp > BigInt(Number.MAX_SAFE_INTEGER) ||
    recordedAt * 1000n > BigInt(Number.MAX_SAFE_INTEGER)
  ) {
    throw new UnexpectedEthCallResponseError('The revocation time is out of range', data);
  }
  return {
    found: true,
    revoked: isRevoked,
    timestamp: Number(timestamp),
    recordedAt: Number(recordedAt) * 1000,
  };
}

/** Decodes a JSON-RPC response to `revocationOfRequest`; a revert is not an answer. */
export function decodeRevocationOfResponse(response: unknown): RevocationStatus {
  const reply = readEthCallReply(response);
  if (reply.kind === 'revert') {
    throw new UnexpectedEthCallResponseError(
      `revocationOf reverted with ${reply.data}: not a status registry`,
      response,
    );
  }
  return decodeRevocationOfResult(reply.data);
}
