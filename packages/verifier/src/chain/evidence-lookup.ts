import { isHashHex } from '../hashing/hash-hex.js';
import { decodeStringResult, encodeStringUint256Call } from './abi-encoding.js';
import { decodeLookupResponse } from './eth-call-reply.js';
import { ethCallRequest, type EthCallRequest } from './eth-call-request.js';
import { EVIDENCE_NOT_FOUND_SELECTOR, GET_EVIDENCE_SELECTOR } from './selectors.js';
import { toUint256 } from './uint256.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

/** Verification of an asset evidence with one `eth_call` (spec 4.8). */

export interface EvidenceFound {
  found: true;
  hash: string;
}

export type EvidenceLookup = EvidenceFound | { found: false };

/** Call data of `getEvidence(assetHash, timestamp)`; the timestamp is in seconds. */
export function encodeGetEvidenceCall(
  assetHash: string,
  timestampSeconds: number | bigint,
): string {
  if (!isHashHex(assetHash)) {
    throw new TypeError('An assetHash is 64 lowercase hex characters without 0x');
  }
  return encodeStringUint256Call(
    GET_EVIDENCE_SELECTOR,
    assetHash,
    toUint256(timestampSeconds, 'timestamp'),
  );
}

/** The whole JSON-RPC body to POST to a node to read one evidence. */
export function getEvidenceRequest(input: {
  smartContract: string;
  assetHash: string;
  timestampSeconds: number | bigint;
  id?: number | string;
}): EthCallRequest {
  return ethCallRequest(
    {
      to: input.smartContract,
      data: encodeGetEvidenceCall(input.assetHash, input.timestampSeconds),
    },
    { id: input.id },
  );
}

/** Decodes the `result` of a successful `getEvidence` call. */
export function decodeGetEvidenceResult(data: string): EvidenceFound {
  let hash: string;
  try {
    hash = decodeStringResult(data);
  } catch (error) {
    throw new UnexpectedEthCallResponseError('The result is not an ABI-encoded string', data, {
      cause: error,
    });
  }
  if (!isHashHex(hash)) {
    throw new UnexpectedEthCallResponseError(
      'The returned hash is not 64 lowercase hex characters',
      data,
    );
  }
  return { found: true, hash };
}

/** Decodes a JSON-RPC response to the `getEvidenceRequest` body. */
export function decodeGetEvidenceResponse(response: unknown): EvidenceLookup {
  return decodeLookupResponse(response, EVIDENCE_NOT_FOUND_SELECTOR, decodeGetEvidenceResult);
}

/** For callers holding revert data already (e.g. from an ethers CALL_EXCEPTION). */
export function isEvidenceNotFoundRevert(revertData: string): boolean {
  return revertData.toLowerCase() === EVIDENCE_NOT_FOUND_SELECTOR;
}
