import { describe, expect, it } from 'vitest';

import { ethCallRequest } from './eth-call-request.js';

const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('ethCallRequest', () => {
  it('when given a call, then it builds a JSON-RPC 2.0 eth_call on the latest block', () => {
    expect(ethCallRequest({ to: CONTRACT, data: '0x1234' })).toEqual({
      jsonrpc: '2.0',
      method: 'eth_call',
      params: [{ to: CONTRACT, data: '0x1234' }, 'latest'],
      id: 1,
    });
  });

  it('when an id and block tag are given, then they are used', () => {
    const request = ethCallRequest(
      { to: CONTRACT, data: '0x' },
      { id: 'verify-1', blockTag: '0x10' },
    );

    expect(request.id).toBe('verify-1');
    expect(request.params[1]).toBe('0x10');
  });

  it.each([
    [{ to: '0x1234', data: '0x' }],
    [{ to: CONTRACT, data: '1234' }],
    [{ to: CONTRACT, data: '0x123' }],
  ])('when the call is %j, then it is rejected', (call) => {
    expect(() => ethCallRequest(call)).toThrow();
  });
});
