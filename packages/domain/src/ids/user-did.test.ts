import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { InvalidIdentifierError } from './invalid-identifier-error.js';
import { formatUserDid, isUserDid, parseUserDid, userDidSchema } from './user-did.js';

describe('user DID', () => {
  it('when the subject uses only DID characters, then it is kept as is', () => {
    expect(formatUserDid('5f7c8ec7-c33c.6c00_4bba')).toBe('did:user:5f7c8ec7-c33c.6c00_4bba');
  });

  it('when the subject holds other characters, then they are percent-encoded in uppercase', () => {
    expect(formatUserDid('auth0|abc')).toBe('did:user:auth0%7Cabc');
    expect(formatUserDid("a:b!(c)'*~")).toBe('did:user:a%3Ab%21%28c%29%27%2A%7E');
    expect(formatUserDid('José')).toBe('did:user:Jos%C3%A9');
  });

  it('when formatting then parsing any subject, then the subject round trips', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (subject) => {
        const did = formatUserDid(subject);

        expect(did).toMatch(/^did:user:(?:[A-Za-z0-9._-]|%[0-9A-F]{2})+$/);
        expect(parseUserDid(did)).toBe(subject);
      }),
    );
  });

  it.each([
    ['an empty subject', 'did:user:'],
    ['a needlessly encoded character', 'did:user:a%2Db'],
    ['lowercase percent hex', 'did:user:a%7cb'],
    ['a raw special character', 'did:user:a|b'],
    ['invalid UTF-8', 'did:user:%FF'],
    ['another method', 'did:usr:abc'],
  ])('when parsing %s, then it is rejected', (_, value) => {
    expect(() => parseUserDid(value)).toThrow(InvalidIdentifierError);
    expect(isUserDid(value)).toBe(false);
    expect(userDidSchema.safeParse(value).success).toBe(false);
  });

  it('when the subject is empty or not well-formed Unicode, then formatting throws', () => {
    expect(() => formatUserDid('')).toThrow(InvalidIdentifierError);
    expect(() => formatUserDid('\ud800')).toThrow(InvalidIdentifierError);
  });
});
