import { fromHex0x, toHex0x } from './hex.js';

/**
 * The little of the Solidity ABI that the two lookups need, written out: calls take
 * `(string, uint256)`, `getTrustPoint` returns `(string, uint8)` and `getEvidence` `(string)`.
 * Hand-written rather than a general ABI coder so that the package stays small enough for a web
 * page; the test vectors pin every byte against an independent encoder.
 */

const WORD = 32;

function word(value: bigint): Uint8Array {
  const bytes = new Uint8Array(WORD);
  let rest = value;
  for (let index = WORD - 1; index >= 0 && rest > 0n; index -= 1) {
    bytes[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

function paddedLength(length: number): number {
  return Math.ceil(length / WORD) * WORD;
}

/** `selector ‖ abi.encode(string text, uint256 value)`. */
export function encodeStringUint256Call(selector: string, text: string, value: bigint): string {
  const textBytes = new TextEncoder().encode(text);
  const selectorBytes = fromHex0x(selector);
  const out = new Uint8Array(selectorBytes.length + 3 * WORD + paddedLength(textBytes.length));
  out.set(selectorBytes, 0);
  let at = selectorBytes.length;
  out.set(word(BigInt(2 * WORD)), at); // offset of the string's tail, after the two head words
  at += WORD;
  out.set(word(value), at);
  at += WORD;
  out.set(word(BigInt(textBytes.length)), at);
  at += WORD;
  out.set(textBytes, at); // the rest stays zero: right padding
  return toHex0x(out);
}

/** `selector ‖ abi.encode(string text)`: a call taking one string (`revocationOf(certId)`). */
export function encodeStringCall(selector: string, text: string): string {
  const textBytes = new TextEncoder().encode(text);
  const selectorBytes = fromHex0x(selector);
  const out = new Uint8Array(selectorBytes.length + 2 * WORD + paddedLength(textBytes.length));
  out.set(selectorBytes, 0);
  let at = selectorBytes.length;
  out.set(word(BigInt(WORD)), at); // offset of the string's tail, after the one head word
  at += WORD;
  out.set(word(BigInt(textBytes.length)), at);
  at += WORD;
  out.set(textBytes, at);
  return toHex0x(out);
}

/** `abi.decode(data, (uint256, uint256, ...))`: `count` static words, returned whole. */
export function decodeWords(data: string, count: number): bigint[] {
  const bytes = fromHex0x(data);
  if (bytes.length !== count * WORD) {
    throw new AbiDecodingError(`expected ${count} words, got ${bytes.length} bytes`);
  }
  return Array.from({ length: count }, (_, index) => readWord(bytes, index * WORD));
}

/** Thrown by the decoders for data that is not the ABI encoding they expect. */
export class AbiDecodingError extends Error {
  override readonly name = 'AbiDecodingError';
}

function readWord(bytes: Uint8Array, at: number): bigint {
  if (at + WORD > bytes.length) {
    throw new AbiDecodingError(`the data ends before the word at byte ${at}`);
  }
  let value = 0n;
  for (let index = at; index < at + WORD; index += 1) {
    value = (value << 8n) | BigInt(bytes[index] ?? 0);
  }
  return value;
}

function readString(bytes: Uint8Array, offset: bigint): string {
  if (offset > BigInt(bytes.length))
    throw new AbiDecodingError('the string offset is out of range');
  const start = Number(offset);
  const length = readWord(bytes, start);
  if (length > BigInt(bytes.length - start - WORD)) {
    throw new AbiDecodingError('the string runs past the end of the data');
  }
  const text = bytes.subarray(start + WORD, start + WORD + Number(length));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(text);
  } catch (error) {
    throw new AbiDecodingError('the string is not valid UTF-8', { cause: error });
  }
}

/** `abi.decode(data, (string, uint))`; the number is returned whole, for the caller to range-check. */
export function decodeStringUintResult(data: string): [string, bigint] {
  const bytes = fromHex0x(data);
  return [readString(bytes, readWord(bytes, 0)), readWord(bytes, WORD)];
}

/** `abi.decode(data, (string))`. */
export function decodeStringResult(data: string): string {
  const bytes = fromHex0x(data);
  return readString(bytes, readWord(bytes, 0));
}
