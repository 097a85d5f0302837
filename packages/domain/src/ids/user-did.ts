import { z } from 'zod';

import { InvalidIdentifierError } from './invalid-identifier-error.js';

/**
 * User identifier `did:user:<sub>` (issuer, userOwner), where `<sub>` is the JWT subject.
 *
 * A subject may hold any character (`auth0|123`, a URL), but a DID's method-specific id may not,
 * so every UTF-8 byte outside `[A-Za-z0-9._-]` is percent-encoded with uppercase hex. Only that
 * canonical spelling parses: one subject has exactly one DID, and DIDs compare as plain strings.
 */

const USER_DID_PREFIX = 'did:user:';
const ENCODED_SUBJECT_PATTERN = /^(?:[A-Za-z0-9._-]|%[0-9A-F]{2})+$/;
// encodeURIComponent leaves these unreserved URI characters alone; DIDs do not allow them.
const NOT_DID_CHARACTERS = /[!~*'()]/g;

export function formatUserDid(subject: string): string {
  if (subject.length === 0) {
    throw new InvalidIdentifierError('A user subject must not be empty');
  }
  let encoded: string;
  try {
    encoded = encodeURIComponent(subject);
  } catch {
    throw new InvalidIdentifierError('A user subject must be well-formed Unicode');
  }
  const didSafe = encoded.replace(
    NOT_DID_CHARACTERS,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return USER_DID_PREFIX + didSafe;
}

/** Returns the JWT subject a user DID was made from. */
export function parseUserDid(value: string): string {
  const encoded = value.startsWith(USER_DID_PREFIX) ? value.slice(USER_DID_PREFIX.length) : '';
  if (!ENCODED_SUBJECT_PATTERN.test(encoded)) {
    throw new InvalidIdentifierError('Invalid user DID: expected did:user:<subject>');
  }
  let subject: string;
  try {
    subject = decodeURIComponent(encoded);
  } catch {
    throw new InvalidIdentifierError('Invalid user DID: the subject is not valid UTF-8');
  }
  if (formatUserDid(subject) !== value) {
    throw new InvalidIdentifierError('Invalid user DID: the subject is not in canonical encoding');
  }
  return subject;
}

export function isUserDid(value: string): boolean {
  try {
    parseUserDid(value);
    return true;
  } catch {
    return false;
  }
}

export const userDidSchema = z.string().refine(isUserDid, {
  message: 'Expected did:user:<subject>',
});
