import { createHash } from 'node:crypto';

import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  canonicalJson,
  certificateHashVersion,
  certificatePayloadV2,
  CERTIFICATE_ROOT_DOMAIN_V2,
  createDisclosableCertificate,
  decodeDisclosure,
  doubleHash,
  encodeDisclosure,
  readDisclosableCertificate,
  SelectiveDisclosureError,
  unpackDisclosures,
  withholdCertificateFields,
  type DisclosableCertificateDraft,
  type DisclosurePath,
  type JsonObject,
  type JsonValue,
  type SelectiveDisclosureErrorCode,
  type WithheldField,
} from '../src/index.js';

// One test per rule the README pins down for version 2; each fails when its rule is broken.

const SALT = 'AAAAAAAAAAAAAAAAAAAAAA'; // 16 zero bytes: fixed salts keep these tests readable
const fixedSalt = (): string => SALT;
let counter = 0;
const countingSalt = (): string => Buffer.alloc(16, (counter += 1) % 256).toString('base64url');

function draft(content: JsonObject, data: Partial<DisclosableCertificateDraft['data']> = {}) {
  return {
    certID: 'did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
    data: {
      name: 'Diploma',
      description: 'With honours',
      type: 'content' as const,
      issuer: 'did:user:alice',
      issuedOn: 1767225600000,
      content,
      ...data,
    },
  };
}

function issue(content: JsonObject, data: Partial<DisclosableCertificateDraft['data']> = {}) {
  return createDisclosableCertificate(draft(content, data), { salt: countingSalt });
}

function refusal(action: () => unknown): {
  code: SelectiveDisclosureErrorCode;
  path?: DisclosurePath;
} {
  try {
    action();
  } catch (error) {
    if (error instanceof SelectiveDisclosureError) {
      return { code: error.code, ...(error.path === undefined ? {} : { path: error.path }) };
    }
    throw error;
  }
  throw new Error('expected a SelectiveDisclosureError, nothing was thrown');
}

const rawDisclosure = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** A copy whose payload content and disclosures are replaced: the tests below then read it. */
function forged(
  certificate: ReturnType<typeof issue>['certificate'],
  sdContent: JsonObject,
  disclosures: string[],
  content: JsonObject = certificate.data.content,
) {
  return {
    ...certificate,
    data: {
      ...certificate.data,
      content,
      selectiveDisclosure: { content: sdContent, disclosures },
    },
  };
}

const withoutDigests = (fields: readonly WithheldField[]) =>
  fields.map(({ digest: _digest, ...rest }) => rest);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('certificate hash version 2: the pinned rules', () => {
  describe('what a copy shows beyond the rule', () => {
    it('when a copy is as issued, with the service view beside data, then nothing is uncovered', () => {
      const { certificate } = issue({ grade: 'B' });

      const reading = readDisclosableCertificate({
        ...certificate,
        metadata: [],
        access: { public: true },
      });

      expect(reading.uncovered).toEqual([]);
    });

    it('when members are added to data and beside it, then the same hash and each is named uncovered', () => {
      const { certificate } = issue({ grade: 'B' });
      const added = {
        ...certificate,
        data: { ...certificate.data, grade: 'A+', fileName: 'diploma.pdf', _sd_alg: 'sha-256' },
        honours: 'summa cum laude',
      };

      const reading = readDisclosableCertificate(added);

      expect(reading.hash).toBe(readDisclosableCertificate(certificate).hash);
      expect(reading.uncovered).toEqual(['grade', 'fileName', '_sd_alg', '$.honours']);
    });
  });

  describe('paths are arrays of segments', () => {
    it('when a member is named "a.b" beside a.b, then withholding one leaves the other', () => {
      const { certificate } = issue({ 'a.b': 1, a: { b: 2 } });

      const copy = withholdCertificateFields(certificate, [['content', 'a.b']]);

      expect(copy.data.content).toEqual({ a: { b: 2 } });
      expect(withoutDigests(readDisclosableCertificate(copy).withheld)).toEqual([
        { kind: 'member', objectPath: ['content'] },
      ]);
    });

    it('when a member is named "0", then it is not the array index 0', () => {
      const { certificate } = issue({ list: ['x'], map: { '0': 'y' } });

      const paths = readDisclosableCertificate(certificate).disclosed.map((field) => field.path);

      expect(paths).toContainEqual(['content', 'list', 0]);
      expect(paths).toContainEqual(['content', 'map', '0']);
      expect(paths).not.toContainEqual(['content', 'map', 0]);
    });
  });

  describe('arrays', () => {
    it('when an element is withheld, then the array closes the gap and the element is listed at its issued index', () => {
      const { certificate, hash } = issue({ grades: [10, 12, 14] });

      const copy = withholdCertificateFields(certificate, [['content', 'grades', 1]]);
      const reading = readDisclosableCertificate(copy);

      expect(copy.data.content).toEqual({ grades: [10, 14] });
      expect(reading.hash).toBe(hash);
      expect(withoutDigests(reading.withheld)).toEqual([
        { kind: 'element', path: ['content', 'grades', 1] },
      ]);
    });

    it('when the elements are issued, then each is a [salt, value] disclosure behind {"...": digest}', () => {
      const { payload, disclosures } = issue({ grades: [10] });
      const element = disclosures
        .map((encoded) => decodeDisclosure(encoded))
        .find((d) => d.value === 10);

      const grades = JSON.parse(
        Buffer.from(disclosures[0] ?? '', 'base64url').toString('utf8'),
      ) as [string, string, JsonValue];

      expect(element?.name).toBeUndefined();
      expect(grades[2]).toEqual([{ '...': element?.digest }]);
      expect(payload.content).toEqual({ _sd: [expect.any(String)] });
    });
  });

  describe('empty objects and arrays', () => {
    it('when the content holds {} and [], then each is a disclosed value and they hash differently', () => {
      const asObject = createDisclosableCertificate(draft({ x: {} }), { salt: fixedSalt });
      const asArray = createDisclosableCertificate(draft({ x: [] }), { salt: fixedSalt });

      expect(asObject.disclosures.map((d) => decodeDisclosure(d).value)).toEqual([{}]);
      expect(asArray.disclosures.map((d) => decodeDisclosure(d).value)).toEqual([[]]);
      expect(asObject.hash).not.toBe(asArray.hash);
      expect(readDisclosableCertificate(asObject.certificate).content).toEqual({ x: {} });
    });

    it('when the content is {}, then the payload holds {} and no disclosure', () => {
      const { payload, disclosures, certificate } = issue({});

      expect(payload.content).toEqual({});
      expect(disclosures).toEqual([]);
      expect(readDisclosableCertificate(certificate).content).toEqual({});
    });
  });

  describe('I-JSON numbers only', () => {
    it.each([
      ['2^53', 2 ** 53],
      ['-(2^53)', -(2 ** 53)],
      ['1e300', 1e300],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
    ])('when the content holds %s, then creation is refused at its path', (_name, value) => {
      expect(refusal(() => issue({ deep: [{ n: value }] }))).toEqual({
        code: 'notIJson',
        path: ['content', 'deep', 0, 'n'],
      });
    });

    it('when the content holds 2^53 - 1, -(2^53 - 1) and 0.5, then it is issued', () => {
      const content = { max: 2 ** 53 - 1, min: -(2 ** 53 - 1), half: 0.5 };

      expect(readDisclosableCertificate(issue(content).certificate).content).toEqual(content);
    });

    it('when a disclosure holds an integer beyond 2^53 that JSON reads back exactly, then reading refuses it', () => {
      const { certificate } = issue({});
      const big = rawDisclosure(`["${SALT}","n",9007199254740994]`);
      const digest = decodeDisclosure(big).digest;

      expect(
        refusal(() => readDisclosableCertificate(forged(certificate, { _sd: [digest] }, [big]))),
      ).toEqual({ code: 'notIJson', path: ['content', 'n'] });
    });

    it('when a disclosure holds an integer JSON rounds, then it is not canonical and refused', () => {
      expect(
        refusal(() => decodeDisclosure(rawDisclosure(`["${SALT}","n",9007199254740993]`))),
      ).toEqual({ code: 'malformedDisclosure' });
    });
  });

  describe('0, false, "" and null are covered', () => {
    const falsy = { zero: 0, no: false, empty: '', nothing: null };

    it('when issued, then each has its own disclosure and shows', () => {
      const { certificate, disclosures } = issue(falsy);

      expect(disclosures).toHaveLength(4);
      expect(readDisclosableCertificate(certificate).content).toEqual(falsy);
    });

    it.each([
      ['zero', false],
      ['no', 0],
      ['empty', null],
      ['nothing', ''],
    ])('when %s is shown as %j, then the copy is refused', (name, shown) => {
      const { certificate } = issue(falsy);
      const copy = {
        ...certificate,
        data: { ...certificate.data, content: { ...falsy, [name]: shown } },
      };

      expect(refusal(() => readDisclosableCertificate(copy)).code).toBe('contentMismatch');
    });

    it('when a disclosure is changed from 0 to false, then its digest is no longer in the payload', () => {
      const { certificate } = createDisclosableCertificate(draft({ zero: 0 }), { salt: fixedSalt });
      const changed = encodeDisclosure(SALT, 'zero', false, []).encoded;

      const copy = forged(certificate, certificate.data.selectiveDisclosure.content, [changed], {
        zero: false,
      });

      expect(refusal(() => readDisclosableCertificate(copy)).code).toBe('unreferencedDisclosure');
    });
  });

  describe('a domain-separated, versioned root', () => {
    it('when hashed, then the root is sha256(sha256(domain ‖ JCS(payload))) and not the bare double hash', () => {
      const { payload, hash } = issue({ a: 1 });
      const inner = createHash('sha256')
        .update(Buffer.from(CERTIFICATE_ROOT_DOMAIN_V2 + canonicalJson(payload), 'utf8'))
        .digest();

      expect(hash).toBe(createHash('sha256').update(inner).digest('hex'));
      expect(hash).not.toBe(doubleHash(Buffer.from(canonicalJson(payload), 'utf8')));
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(payload).toMatchObject({ hashVersion: 2, _sd_alg: 'sha-256' });
    });

    it('when a certificate names no version, then it is version 1; version 3 is refused', () => {
      const { certificate } = issue({});

      expect(certificateHashVersion({ certID: 'x', data: { hash: 'h' } })).toBe(1);
      expect(certificateHashVersion(certificate)).toBe(2);
      expect(
        refusal(() =>
          readDisclosableCertificate({
            ...certificate,
            data: { ...certificate.data, hashVersion: 3 },
          }),
        ).code,
      ).toBe('unknownVersion');
    });

    it.each([
      ['name', 'Diploma of Medicine'],
      ['description', 'Without honours'],
      ['issuer', 'did:user:mallory'],
      ['issuedOn', 1767225600001],
      ['issuerOrigin', 'https://forger.example'],
      ['issuerDomain', 'forger.example'],
      ['expires', 1924992000001],
    ])('when a copy changes %s, then its root differs', (name, value) => {
      const { certificate, hash } = issue(
        { a: 1 },
        { issuerOrigin: 'https://u.example', issuerDomain: 'u.example', expires: 1924992000000 },
      );

      const reading = readDisclosableCertificate({
        ...certificate,
        data: { ...certificate.data, [name]: value },
      });

      expect(reading.hash).not.toBe(hash);
    });

    it('when a copy drops expires or certID changes, then its root differs', () => {
      const { certificate, hash } = issue({ a: 1 }, { expires: 1924992000000 });
      const { expires: _expires, ...withoutExpiry } = certificate.data;

      expect(readDisclosableCertificate({ ...certificate, data: withoutExpiry }).hash).not.toBe(
        hash,
      );
      expect(
        readDisclosableCertificate({ ...certificate, certID: `${certificate.certID}0` }).hash,
      ).not.toBe(hash);
    });

    it('when a file or URL certificate lacks fileHash, or a content certificate has one, then it is refused', () => {
      const fileHash = 'a'.repeat(64);

      expect(refusal(() => issue({}, { type: 'file' })).code).toBe('invalidCertificate');
      expect(refusal(() => issue({}, { type: 'url' })).code).toBe('invalidCertificate');
      expect(refusal(() => issue({}, { fileHash })).code).toBe('invalidCertificate');
      expect(issue({}, { type: 'file', fileHash }).payload.fileHash).toBe(fileHash);
    });
  });

  describe('salts', () => {
    it('when issued by default, then every salt is 16 bytes from crypto.getRandomValues, never the same twice', () => {
      // Salts are drawn from a pool the CSPRNG fills 4 KiB at a time: every byte the spy sees
      // filled is kept, and certificates are issued until the pool has been filled under it.
      const getRandomValues = crypto.getRandomValues.bind(crypto);
      const filled: Buffer[] = [];
      const random = vi.spyOn(crypto, 'getRandomValues').mockImplementation((array) => {
        const result = getRandomValues(array as Uint8Array);
        filled.push(Buffer.from(result.buffer, result.byteOffset, result.byteLength));
        return result;
      });
      for (let issued = 0; filled.length === 0 && issued < 1_000; issued += 1) {
        createDisclosableCertificate(draft({ a: 1, b: [1, 1] }));
      }

      const first = createDisclosableCertificate(draft({ a: 1, b: [1, 1] }));
      const second = createDisclosableCertificate(draft({ a: 1, b: [1, 1] }));
      const salts = [...first.disclosures, ...second.disclosures].map((d) =>
        Buffer.from(decodeDisclosure(d).salt, 'base64url'),
      );

      expect(random).toHaveBeenCalled();
      expect(salts.every((salt) => salt.length === 16)).toBe(true);
      expect(salts.every((salt) => filled.some((bytes) => bytes.includes(salt)))).toBe(true);
      expect(new Set(salts.map((salt) => salt.toString('hex'))).size).toBe(8);
      expect(first.hash).not.toBe(second.hash);
    });

    it('when a salt is shorter than 128 bits, then issuing and reading refuse it', () => {
      const short = Buffer.alloc(15).toString('base64url');

      expect(
        refusal(() => createDisclosableCertificate(draft({ a: 1 }), { salt: () => short })),
      ).toEqual({ code: 'weakSalt', path: ['content', 'a'] });
      expect(refusal(() => decodeDisclosure(rawDisclosure(`["${short}","a",1]`))).code).toBe(
        'weakSalt',
      );
    });
  });

  describe('what a copy may not hold', () => {
    it('when the payload holds a digest twice, then it is refused', () => {
      const { certificate, payload, disclosures } = issue({ a: 1 });
      const [digest] = (payload.content as { _sd: string[] })._sd;

      expect(
        refusal(() =>
          readDisclosableCertificate(
            forged(certificate, { _sd: [digest ?? '', digest ?? ''] }, disclosures),
          ),
        ).code,
      ).toBe('duplicateDigest');
    });

    it('when a digest is both in _sd and in an array, then it is refused', () => {
      const { certificate, payload } = issue({ a: 1 });
      const [digest] = (payload.content as { _sd: string[] })._sd;

      expect(
        refusal(() =>
          readDisclosableCertificate(
            forged(certificate, { _sd: [digest ?? ''], list: [{ '...': digest ?? '' }] }, []),
          ),
        ).code,
      ).toBe('duplicateDigest');
    });

    it('when a disclosure is given twice, then it is refused', () => {
      const { certificate, disclosures } = issue({ a: 1 });

      expect(
        refusal(() =>
          readDisclosableCertificate(
            forged(certificate, certificate.data.selectiveDisclosure.content, [
              ...disclosures,
              ...disclosures,
            ]),
          ),
        ).code,
      ).toBe('duplicateDisclosure');
    });

    it('when _sd_alg is not sha-256, then the payload is refused', () => {
      expect(refusal(() => unpackDisclosures({ _sd_alg: 'sha-512', a: 1 }, [])).code).toBe(
        'unsupportedAlgorithm',
      );
      expect(refusal(() => unpackDisclosures({ _sd_alg: 'SHA-256', a: 1 }, [])).code).toBe(
        'unsupportedAlgorithm',
      );
    });

    it.each(['_sd', '...'])('when a disclosure names a member %j, then it is refused', (name) => {
      const encoded = rawDisclosure(`["${SALT}",${JSON.stringify(name)},1]`);
      const digest = createHash('sha256').update(encoded, 'ascii').digest('base64url');

      expect(refusal(() => unpackDisclosures({ _sd: [digest] }, [encoded])).code).toBe(
        'reservedName',
      );
    });

    it.each(['_sd', '...'])('when the content has a member %j, then issuing refuses it', (name) => {
      expect(refusal(() => issue({ nested: { [name]: 1 } }))).toEqual({
        code: 'reservedName',
        path: ['content', 'nested', name],
      });
    });

    it('when a nested disclosure stays after its parent is dropped, then it is refused as unreferenced', () => {
      const { certificate, disclosures } = issue({ student: { name: 'Ada' } });

      const copy = forged(
        certificate,
        certificate.data.selectiveDisclosure.content,
        disclosures.slice(1),
        {},
      );

      expect(refusal(() => readDisclosableCertificate(copy)).code).toBe('unreferencedDisclosure');
    });

    it('when an element disclosure is in _sd, or a member disclosure in an array, then it is refused', () => {
      const element = encodeDisclosure(SALT, undefined, 1, []);
      const member = encodeDisclosure(SALT, 'a', 1, []);

      expect(
        refusal(() => unpackDisclosures({ _sd: [element.digest] }, [element.encoded])).code,
      ).toBe('wrongDisclosureKind');
      expect(
        refusal(() => unpackDisclosures({ list: [{ '...': member.digest }] }, [member.encoded]))
          .code,
      ).toBe('wrongDisclosureKind');
    });

    it('when a disclosure names a member shown in clear, then it is refused', () => {
      const member = encodeDisclosure(SALT, 'a', 2, []);

      expect(
        refusal(() => unpackDisclosures({ a: 1, _sd: [member.digest] }, [member.encoded])),
      ).toEqual({
        code: 'duplicateMember',
        path: ['a'],
      });
    });

    it.each([
      ['with spaces', `["${SALT}", "a", 1]`],
      ['with members out of order', `["${SALT}","a",{"b":1,"a":2}]`],
      ['with a member twice', `["${SALT}","a",{"a":1,"a":2}]`],
      ['of four items', `["${SALT}","a",1,2]`],
      ['with a number as name', `["${SALT}",1,1]`],
    ])('when a disclosure is written %s, then it is refused', (_name, text) => {
      expect(refusal(() => decodeDisclosure(rawDisclosure(text))).code).toBe('malformedDisclosure');
    });

    it('when a disclosure is padded or uses the base64 alphabet, then it is refused', () => {
      const encoded = encodeDisclosure(SALT, 'a', 'ÿ?', []).encoded;
      const standard = Buffer.from(encoded, 'base64url').toString('base64');

      expect(standard).not.toBe(encoded);
      expect(refusal(() => decodeDisclosure(standard)).code).toBe('malformedDisclosure');
    });

    it('when _sd is not an array of digests, or a {"...": digest} element has other members, then it is refused', () => {
      const member = encodeDisclosure(SALT, 'a', 1, []);

      expect(refusal(() => unpackDisclosures({ _sd: 'x' }, [])).code).toBe('malformedPayload');
      expect(refusal(() => unpackDisclosures({ _sd: ['short'] }, [])).code).toBe(
        'malformedPayload',
      );
      expect(
        refusal(() => unpackDisclosures({ list: [{ '...': member.digest, b: 1 }] }, [])).code,
      ).toBe('malformedPayload');
    });

    it('when data.content shows what no disclosure reveals, then the copy is refused', () => {
      const { certificate } = issue({ grade: 'B' });

      const copy = { ...certificate, data: { ...certificate.data, content: { grade: 'A' } } };

      expect(refusal(() => readDisclosableCertificate(copy))).toEqual({
        code: 'contentMismatch',
        path: ['data', 'content'],
      });
    });
  });

  describe('withholding', () => {
    it.each([
      ['certID'],
      ['type'],
      ['name'],
      ['description'],
      ['issuer'],
      ['issuerOrigin'],
      ['issuerDomain'],
      ['issuedOn'],
      ['expires'],
      ['hashVersion'],
      ['content'],
    ])('when %s is named, then it is refused as never withholdable', (field) => {
      const { certificate } = issue(
        { a: 1 },
        { issuerOrigin: 'https://u.example', issuerDomain: 'u.example', expires: 1 },
      );

      expect(refusal(() => withholdCertificateFields(certificate, [[field]])).code).toBe(
        'notWithholdable',
      );
    });

    it('when a path is not disclosed (absent, already withheld, or kept in clear), then it is refused', () => {
      const { certificate } = createDisclosableCertificate(
        draft({ a: 1, file: { name: 'x.pdf' } }),
        {
          inClear: [['content', 'file']],
        },
      );
      const copy = withholdCertificateFields(certificate, [['content', 'a']]);

      expect(refusal(() => withholdCertificateFields(copy, [['content', 'a']])).code).toBe(
        'notDisclosed',
      );
      expect(refusal(() => withholdCertificateFields(copy, [['content', 'b']])).code).toBe(
        'notDisclosed',
      );
      expect(
        refusal(() => withholdCertificateFields(copy, [['content', 'file', 'name']])).code,
      ).toBe('notDisclosed');
      expect(readDisclosableCertificate(copy).content).toEqual({ file: { name: 'x.pdf' } });
    });

    it('when a copy is made, then the original is unchanged and other members pass through', () => {
      const { certificate } = issue({ a: 1, b: 2 });
      const full = { ...certificate, metadata: [{ type: 'Evidence' }], status: 'anchored' };
      const before = structuredClone(full);

      const copy = withholdCertificateFields(full, [['content', 'a']]);

      expect(full).toEqual(before);
      expect(copy.metadata).toEqual(full.metadata);
      expect(copy.status).toBe('anchored');
      expect(copy.data.content).toEqual({ b: 2 });
    });

    it('when a member is named __proto__, then it is issued, shown and withheld like any other', () => {
      const content = JSON.parse('{"__proto__":{"x":1},"y":2}') as JsonObject;
      const { certificate } = issue(content);

      const reading = readDisclosableCertificate(certificate);
      const copy = withholdCertificateFields(certificate, [['content', '__proto__', 'x']]);

      // Members come back in the order of their digests, which the salts decide.
      expect(Object.keys(reading.content).sort()).toEqual(['__proto__', 'y']);
      expect(canonicalJson(reading.content)).toBe('{"__proto__":{"x":1},"y":2}');
      expect(canonicalJson(copy.data.content)).toBe('{"__proto__":{},"y":2}');
    });
  });

  describe('the payload', () => {
    it('when built from a certificate, then it holds every shown field in clear under its own name', () => {
      const { certificate } = issue(
        { a: 1 },
        { type: 'file', fileHash: 'b'.repeat(64), issuerOrigin: 'https://u.example', expires: 5 },
      );

      expect(certificatePayloadV2(certificate)).toEqual({
        _sd_alg: 'sha-256',
        hashVersion: 2,
        certID: certificate.certID,
        type: 'file',
        name: 'Diploma',
        description: 'With honours',
        issuer: 'did:user:alice',
        issuerOrigin: 'https://u.example',
        issuedOn: 1767225600000,
        expires: 5,
        fileHash: 'b'.repeat(64),
        content: certificate.data.selectiveDisclosure.content,
      });
    });
  });
});
