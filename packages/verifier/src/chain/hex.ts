import { bytesToHex, hexToBytes } from '@noble/hashes/utils';

/** 0x-prefixed hex of whole bytes, any case (call data, revert data, results). */
export const HEX_DATA_PATTERN = /^0x(?:[0-9a-fA-F]{2})*$/;

export function isHexData(value: unknown): value is string {
  return typeof value === 'string' && HEX_DATA_PATTERN.test(value);
}

export function toHex0x(bytes: Uint8Array): string {
  return `0x${bytesToHex(bytes)}`;
}

export function fromHex0x(hex: string): Uint8Array {
  return hexToBytes(hex.slice(2));
}
