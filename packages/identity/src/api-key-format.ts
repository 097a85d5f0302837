import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Every key starts with this, so secret scanners (GitHub's, gitleaks, trufflehog) can be taught
 * one pattern: `tp_live_[0-9A-Za-z]{50}`.
 */
export const API_KEY_PREFIX = 'tp_live_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 12;
/** 32 base-62 characters: about 190 bits, beyond guessing however fast the guesses come. */
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const API_KEY = new RegExp(
  `^${API_KEY_PREFIX}([0-9A-Za-z]{${String(ID_LENGTH)}})[0-9A-Za-z]{${String(SECRET_LENGTH)}}([0-9A-Za-z]{${String(CHECKSUM_LENGTH)}})$`,
);
const API_KEY_ID = new RegExp(`^[0-9A-Za-z]{${String(ID_LENGTH)}}$`);

function randomBase62(length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 1) text += BASE62.charAt(randomInt(BASE62.length));
  return text;
}

/** CRC-32 of the rest of the key in 6 base-62 characters (62^6 > 2^32), as GitHub's tokens do. */
function checksum(body: string): string {
  let value = crc32(body);
  let text = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    text = BASE62.charAt(value % 62) + text;
    value = Math.floor(value / 62);
  }
  return text;
}

/**
 * A new key: `tp_live_` + a 12-character id (shown in lists, the client_id of the token endpoint)
 * + a 32-character secret + a 6-character checksum. The checksum lets a scanner (or this service,
 * before any database query) tell a real key from a random string of the same shape.
 */
export function generateApiKey(): { id: string; key: string } {
  const id = randomBase62(ID_LENGTH);
  const body = `${API_KEY_PREFIX}${id}${randomBase62(SECRET_LENGTH)}`;
  return { id, key: `${body}${checksum(body)}` };
}

/** Whether a bearer token is meant as an API key (rather than a JWT). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** The id of a well-formed key with a correct checksum; undefined for anything else. */
export function apiKeyId(key: string): string | undefined {
  const match = API_KEY.exec(key);
  if (match === null) return undefined;
  const [, id, sum] = match;
  return sum === checksum(key.slice(0, -CHECKSUM_LENGTH)) ? id : undefined;
}

export function isApiKeyId(id: string): boolean {
  return API_KEY_ID.test(id);
}

/** What is stored of a key: its SHA-256, 64 lowercase hex characters. */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
