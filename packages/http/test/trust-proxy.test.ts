import { describe, expect, it } from 'vitest';

import { parseTrustProxy } from '../src/trust-proxy.js';

describe('parseTrustProxy', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['1', 1],
    ['loopback', ['loopback']],
    [
      '10.0.0.0/8, 192.168.1.5,fd00::/8,uniquelocal',
      ['10.0.0.0/8', '192.168.1.5', 'fd00::/8', 'uniquelocal'],
    ],
  ])('when TRUST_PROXY is %j, then the setting is %j', (value, expected) => {
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/33', 'balancer.internal', '10.0.0.1,,10.0.0.2', '-1'])(
    'when TRUST_PROXY is %j, then the start stops with a message naming it',
    (value) => {
      expect(() => parseTrustProxy(value)).toThrow(/TRUST_PROXY/);
    },
  );
});
