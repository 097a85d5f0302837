import { isHashHex } from '../hashing/hash-hex.js';
import {
  isTrustPointTypeCode,
  trustPointTypeName,
  type TrustPointTypeName,
} from '../trustpoint-type.js';
import { decodeStringUintResult, encodeStringUint256Call } from './abi-encoding.js';
import { decodeLookupResponse } from './eth-call-reply.js';
import { ethCallRequest, type EthCallRequest } from './eth-call-request.js';
import { GET_TRUST_POINT_SELECTOR, TRUST_POINT_NOT_FOUND_SELECTOR } from './selectors.js';
import { toUint256 } from './uint256.js';
import { UnexpectedEthCallResponseError } from './unexpected-eth-call-response-error.js';

/** Verification of a certificate trustpoint with one `eth_call` (spec 4.8). */

export interface TrustPointFound {
  found: true;
  hash: string;
  type: TrustPointTypeName;
}

export type TrustPointLookup = TrustPointFound | { found: false };

/** Call data of `getTrustPoint(certId, timestamp)`; the timestamp is in milliseconds. */
export function encodeGetTrustPointCall(certId: string, timestampMs: number | bigint): string {
  return encodeStringUint256Call(
    GET_TRUST_POINT_SELECTOR,
    certId,
    toUint256(timestampMs, 'timestamp'),
  );
}

/** The whole JSON-RPC body to POST to a node to read one trustpoint. */
export function getTrustPointRequest(input: {
  smartContract: string;
  certId: string;
  timestampMs: number | bigint;
  id?: number | string;
}): EthCallRequest {
  return ethCallRequest(
    { to: input.smartContract, data: encodeGetTrustPointCall(input.certId, input.timestampMs) },
    { id: input.id },
  );
}

/** Decodes the `result` of a successful `getTrustPoint` call. */
export function decodeGetTrustPointResult(data: string): TrustPointFound {
  let hash: string;
  let code: bigint;
  try {
    [hash, code] = decodeStringUintResult(data);
  } catch (error) {
    throw new UnexpectedEthCallResponseError(
      'The result is not an ABI-encoded (string, uint8)',
      data,
      { cause: error },
    );
  }
  if (!isHashHex(hash)) {
    throw new UnexpectedEthCallResponseError(
      'The returned hash is not 64 lowercase hex characters',
      data,
    );
  }
  if (!isTrustPointTypeCode(code)) {
    throw new UnexpectedEthCallResponseError('The returned trustpoint type code is unknown', data);
  }
  return { found: true, hash, type: trustPointTypeName(code) };
}

/** Decodes a JSON-RPC response to the `getTrustPointRequest` body. */
export function decodeGetTrustPointResponse(response: unknown): TrustPointLookup {
  return decodeLookupResponse(response, TRUST_POINT_NOT_FOUND_SELECTOR, decodeGetTrustPointResult);
}

/** For callers holding revert data already (e.g. from an ethers CALL_EXCEPTION). */
export function isTrustPointNotFoundRevert(revertData: string): boolean {
  return revertData.toLowerCase() === TRUST_POINT_NOT_FOUND_SELECTOR;
}
