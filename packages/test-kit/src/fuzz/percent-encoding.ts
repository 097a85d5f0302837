const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * `encodeURIComponent` that never throws: the text's UTF-8 bytes, unreserved characters kept
 * and the rest as `%XX`. A lone surrogate becomes U+FFFD's bytes, as `Buffer` writes it.
 */
export function percentEncoded(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += UNRESERVED.test(character)
      ? character
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}
