import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { formatCertId, isCertId, newCertId, parseCertId, certIdSchema } from './cert-id.js';
import { InvalidIdentifierError } from './invalid-identifier-error.js';
import { formatTrackId, parseTrackId, trackIdSchema } from './track-id.js';
import { createUuidV7Generator, isUuidV7 } from './uuid-v7.js';

const UUID = '0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';

const namespaces = fc.stringMatching(/^[a-z0-9]{1,16}$/);
const uuids = fc
  .tuple(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.uint8Array({ minLength: 10, maxLength: 10 }))
  .map(([time, random]) => createUuidV7Generator({ now: () => time, randomBytes: () => random })());

describe('certID', () => {
  it('when formatting, then it is did:<ns>:certid:<uuid>', () => {
    expect(formatCertId('trustpoint', UUID)).toBe(`did:trustpoint:certid:${UUID}`);
  });

  it('when minting a new certID, then it parses back with a UUIDv7', () => {
    const certId = newCertId('acme');

    const parsed = parseCertId(certId, 'acme');

    expect(parsed.namespace).toBe('acme');
    expect(isUuidV7(parsed.id)).toBe(true);
  });

  it('when formatting then parsing any namespace and UUIDv7, then the parts round trip', () => {
    fc.assert(
      fc.property(namespaces, uuids, (namespace, id) => {
        expect(parseCertId(formatCertId(namespace, id))).toEqual({ namespace, id });
        expect(parseTrackId(formatTrackId(namespace, id))).toEqual({ namespace, id });
      }),
    );
  });

  it.each([
    ['a trackID', `did:trustpoint:trackid:${UUID}`],
    ['an uppercase namespace', `did:Trustpoint:certid:${UUID}`],
    ['a UUID that is not v7', 'did:trustpoint:certid:0194f0c4-7d2a-4c3e-9b1f-2a4e6c8d0f12'],
    ['an extra segment', `did:trustpoint:x:certid:${UUID}`],
    ['another scheme', `urn:trustpoint:certid:${UUID}`],
    ['an empty string', ''],
  ])('when parsing %s, then it throws InvalidIdentifierError', (_, value) => {
    expect(() => parseCertId(value)).toThrow(InvalidIdentifierError);
    expect(isCertId(value)).toBe(false);
  });

  it('when the namespace is not the expected one, then it is rejected', () => {
    const certId = formatCertId('other', UUID);

    expect(() => parseCertId(certId, 'trustpoint')).toThrow(/namespace "other"/);
    expect(certIdSchema('trustpoint').safeParse(certId).success).toBe(false);
    expect(certIdSchema().safeParse(certId).success).toBe(true);
  });

  it.each([['Upper'], ['with-dash'], ['']])(
    'when formatting with namespace "%s", then it throws',
    (namespace) => {
      expect(() => formatCertId(namespace, UUID)).toThrow(InvalidIdentifierError);
    },
  );
});

describe('trackID', () => {
  it('when validating, then only the trackid form is accepted', () => {
    expect(trackIdSchema().safeParse(`did:trustpoint:trackid:${UUID}`).success).toBe(true);
    expect(trackIdSchema().safeParse(`did:trustpoint:certid:${UUID}`).success).toBe(false);
  });
});
