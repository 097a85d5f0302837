import { isHexData } from './hex.js';

/** A JSON-RPC 2.0 `eth_call` body: all a verifier has to POST to a node (spec 4.8). */
export interface EthCallRequest {
  jsonrpc: '2.0';
  method: 'eth_call';
  params: [{ to: string; data: string }, string];
  id: number | string;
}

/** A contract address: 0x and 40 hex characters (checksummed or not). */
export const EVM_ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function ethCallRequest(
  call: { to: string; data: string },
  options: { id?: number | string | undefined; blockTag?: string } = {},
): EthCallRequest {
  if (!EVM_ADDRESS_PATTERN.test(call.to)) {
    throw new TypeError('Expected an address: 0x followed by 40 hexadecimal characters');
  }
  if (!isHexData(call.data)) {
    throw new TypeError('Call data must be 0x-prefixed hex bytes');
  }
  return {
    jsonrpc: '2.0',
    method: 'eth_call',
    params: [{ to: call.to, data: call.data }, options.blockTag ?? 'latest'],
    id: options.id ?? 1,
  };
}
