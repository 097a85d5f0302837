import { z } from 'zod';

import { evmAddressSchema } from '../schemas/evm-address.js';

/** A JSON-RPC 2.0 `eth_call` body: all a verifier has to POST to a node (spec 4.8). */
export interface EthCallRequest {
  jsonrpc: '2.0';
  method: 'eth_call';
  params: [{ to: string; data: string }, string];
  id: number | string;
}

const callDataSchema = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2})*$/, 'Call data must be 0x-prefixed hex bytes');

export function ethCallRequest(
  call: { to: string; data: string },
  options: { id?: number | string; blockTag?: string } = {},
): EthCallRequest {
  const to = evmAddressSchema.parse(call.to);
  const data = callDataSchema.parse(call.data);
  return {
    jsonrpc: '2.0',
    method: 'eth_call',
    params: [{ to, data }, options.blockTag ?? 'latest'],
    id: options.id ?? 1,
  };
}
