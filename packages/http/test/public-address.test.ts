import { describe, expect, it } from 'vitest';
import { isAllowedAddress, PUBLIC_ADDRESSES_ONLY, refusedAddressOf } from '../src/index.js';

describe('the public-address guard', () => {
  it('when an address is private, loopback, link-local, unique-local or unspecified, then it is refused by default', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::',
      '::ffff:10.0.0.1',
      // IPv4-compatible (deprecated): ipaddr.js calls them unicast.
      '::127.0.0.1',
      '::169.254.169.254',
      '::10.0.0.1',
    ]) {
      expect(isAllowedAddress(address, PUBLIC_ADDRESSES_ONLY), address).toBe(false);
    }
    expect(isAllowedAddress('93.184.215.14', PUBLIC_ADDRESSES_ONLY)).toBe(true);
    expect(isAllowedAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c', PUBLIC_ADDRESSES_ONLY)).toBe(
      true,
    );
  });

  it('when the operator allows addresses or ranges, then those pass and no others', () => {
    const policy = { allowAddresses: ['127.0.0.1', '10.1.0.0/16'], allowPrivateAddresses: false };
    expect(isAllowedAddress('127.0.0.1', policy)).toBe(true);
    expect(isAllowedAddress('10.1.2.3', policy)).toBe(true);
    expect(isAllowedAddress('10.2.0.1', policy)).toBe(false);
    expect(isAllowedAddress('::1', policy)).toBe(false);
    expect(isAllowedAddress('10.2.0.1', { allowAddresses: [], allowPrivateAddresses: true })).toBe(
      true,
    );
  });

  it('when a host is a literal IP or a name, then the refused address is the one it is or resolves to', async () => {
    expect(await refusedAddressOf('10.0.0.1', PUBLIC_ADDRESSES_ONLY)).toBe('10.0.0.1');
    expect(await refusedAddressOf('[::1]', PUBLIC_ADDRESSES_ONLY)).toBe('::1');
    expect(await refusedAddressOf('localhost', PUBLIC_ADDRESSES_ONLY)).toMatch(/^(127\.|::1)/);
    expect(await refusedAddressOf('93.184.215.14', PUBLIC_ADDRESSES_ONLY)).toBeUndefined();
    // A name that does not resolve passes here: the address is checked when connecting.
    expect(await refusedAddressOf('no-such-host.invalid', PUBLIC_ADDRESSES_ONLY)).toBeUndefined();
  });
});
