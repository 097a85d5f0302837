import type { Request } from 'express';
import { describe, expect, it } from 'vitest';

import { clientAddress } from '../src/client-address.js';

const from = (ip: string) => clientAddress({ ip, socket: {} } as unknown as Request);

describe('clientAddress', () => {
  it('when the client is IPv4, then its address is the key, mapped into IPv6 or not', () => {
    expect(from('203.0.113.7')).toBe('203.0.113.7');
    expect(from('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('when IPv6 clients share a /56, then they share a key; other /56s do not', () => {
    expect(from('2001:db8:0:12::1')).toBe(from('2001:db8:0:ff:abcd::9'));
    expect(from('2001:db8:0:100::1')).not.toBe(from('2001:db8:0:12::1'));
  });
});
