import { createHash } from 'node:crypto';

import { getClaimsSync, decodeSdJwtSync } from '@sd-jwt/decode';
import { selectDisclosures, type SerializedDisclosure } from '@sd-jwt/present';
import type { PresentationFrame } from '@sd-jwt/types';
import { Disclosure } from '@sd-jwt/utils';
import { describe, expect, it } from 'vitest';

import {
  CERTIFICATE_ROOT_DOMAIN_V2,
  createDisclosableCertificate,
  readDisclosableCertificate,
  withholdCertificateFields,
  type DisclosableCertificateDraft,
  type DisclosurePath,
  type JsonObject,
} from '../src/index.js';
import { loadDisclosureVectors, type DisclosureVector } from './disclosure-vector-file.js';

// The vectors come from a second implementation (test/vectors/generate-disclosure-v2.py). Each is
// checked twice: against this package, and against the OpenWallet Foundation's SD-JWT libraries
// with Node's own SHA-256, so the file is not only consistent with the code that passes it.
const file = loadDisclosureVectors();

const pathKey = (path: DisclosurePath): string => JSON.stringify(path);

function issue(vector: DisclosureVector) {
  const salts = new Map(vector.input.salts.map(({ path, salt }) => [pathKey(path), salt]));
  return createDisclosableCertificate(
    vector.input.certificate as unknown as DisclosableCertificateDraft,
    {
      inClear: vector.input.inClear,
      salt: (path) => {
        const salt = salts.get(pathKey(path));
        if (salt === undefined) throw new Error(`no salt in the vector for ${pathKey(path)}`);
        return salt;
      },
    },
  );
}

const nodeHasher = (data: string | ArrayBuffer, alg: string): Uint8Array => {
  expect(alg).toBe('sha-256');
  const bytes = typeof data === 'string' ? Buffer.from(data, 'ascii') : Buffer.from(data);
  return new Uint8Array(createHash('sha256').update(bytes).digest());
};

const base64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

/** What the libraries read from an SD-JWT: here an unsecured one, as the chain plays the signature's part. */
function unsecuredSdJwt(canonicalPayload: string, disclosures: readonly string[]): string {
  const jwt = `${base64url('{"alg":"none"}')}.${base64url(canonicalPayload)}.`;
  return `${jwt}~${disclosures.map((disclosure) => `${disclosure}~`).join('')}`;
}

/** A presentation frame naming every path kept, as @sd-jwt/present expects. */
function frameOf(paths: readonly DisclosurePath[]): PresentationFrame<Record<string, unknown>> {
  const frame: Record<string, unknown> = {};
  for (const path of paths) {
    let node = frame;
    path.forEach((segment, index) => {
      const key = String(segment);
      if (index === path.length - 1) {
        node[key] ??= true;
        return;
      }
      if (typeof node[key] !== 'object') node[key] = {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return frame as PresentationFrame<Record<string, unknown>>;
}

function withoutSdAlg(payload: JsonObject): JsonObject {
  const { _sd_alg: _algorithm, ...rest } = payload;
  return rest;
}

describe('certificate hash version 2: test vectors', () => {
  describe.each(file.vectors)('$description', (vector) => {
    const { expected } = vector;
    const content = (vector.input.certificate.data as { content: JsonObject }).content;

    describe('this package', () => {
      it('when issuing with the vector salts, then disclosures, payload, hash and certificate match', () => {
        const issued = issue(vector);

        expect(issued.disclosures).toEqual(expected.disclosures.map((item) => item.encoded));
        expect(issued.payload).toEqual(expected.payload);
        expect(issued.hash).toBe(expected.hash);
        expect(issued.certificate).toEqual(expected.certificate);
      });

      it('when reading the issued certificate, then its hash and content come back, nothing withheld', () => {
        const reading = readDisclosableCertificate(expected.certificate);

        expect(reading.hash).toBe(expected.hash);
        expect(reading.content).toEqual(content);
        expect(reading.withheld).toEqual([]);
        expect(reading.disclosed.map((field) => field.path)).toEqual(
          expect.arrayContaining(expected.disclosures.map((item) => item.path)),
        );
      });

      it.each(vector.withhold)(
        'when withholding $description, then the copy keeps the hash and lists what was withheld',
        (withhold) => {
          const copy = withholdCertificateFields(expected.certificate, withhold.paths);
          const reading = readDisclosableCertificate(copy);

          expect(copy.data.selectiveDisclosure).toEqual({
            content: expected.payload.content,
            disclosures: withhold.expected.disclosures,
          });
          expect(copy.data.content).toEqual(withhold.expected.content);
          expect(reading.hash).toBe(expected.hash);
          expect(reading.withheld).toEqual(withhold.expected.withheld);
        },
      );

      it.each(vector.tampered)('when the copy is $description, then the hash differs', (change) => {
        const data = Object.fromEntries(
          Object.entries({ ...expected.certificate.data, ...change.data }).filter(
            ([, value]) => value !== null,
          ),
        );

        const reading = readDisclosableCertificate({ ...expected.certificate, data });

        expect(reading.hash).toBe(change.expectedHash);
        expect(reading.hash).not.toBe(expected.hash);
      });
    });

    describe('independent check: OpenWallet Foundation SD-JWT libraries, Node SHA-256', () => {
      it('when each disclosure is decoded, then salt, name, value and digest match', () => {
        for (const item of expected.disclosures) {
          const decoded = Disclosure.fromEncodeSync(item.encoded, {
            alg: 'sha-256',
            hasher: nodeHasher,
          });

          expect(decoded.decode()).toEqual(item.decoded);
          expect(decoded.digestSync({ alg: 'sha-256', hasher: nodeHasher })).toBe(item.digest);
        }
      });

      it('when the payload and every disclosure are read as an SD-JWT, then the claims are the shown fields and the content', () => {
        const sdJwt = unsecuredSdJwt(
          expected.canonicalPayload,
          expected.disclosures.map((item) => item.encoded),
        );
        const decoded = decodeSdJwtSync(sdJwt, nodeHasher);

        const claims = getClaimsSync<JsonObject>(
          decoded.jwt.payload,
          decoded.disclosures,
          nodeHasher,
        );

        expect(decoded.jwt.payload).toEqual(expected.payload);
        expect(claims).toEqual({ ...withoutSdAlg(expected.payload), content });
      });

      it('when the canonical payload is hashed with the domain, then it gives the root', () => {
        const inner = createHash('sha256')
          .update(Buffer.from(CERTIFICATE_ROOT_DOMAIN_V2 + expected.canonicalPayload, 'utf8'))
          .digest();

        expect(file.rule.domain).toBe(CERTIFICATE_ROOT_DOMAIN_V2);
        expect(JSON.parse(expected.canonicalPayload)).toEqual(expected.payload);
        expect(createHash('sha256').update(inner).digest('hex')).toBe(expected.hash);
      });

      it.each(vector.withhold)(
        'when presenting all but $description, then the library keeps the same disclosures and reveals the same content',
        (withhold) => {
          const serialized: SerializedDisclosure[] = expected.disclosures.map((item) => {
            const [salt, ...rest] = item.decoded as [string, ...unknown[]];
            return {
              digest: item.digest,
              encoded: item.encoded,
              salt,
              key: rest.length === 2 ? (rest[0] as string) : undefined,
              value: rest.length === 2 ? rest[1] : rest[0],
            };
          });
          const keptPaths = expected.disclosures
            .filter((item) => withhold.expected.disclosures.includes(item.encoded))
            .map((item) => item.path);

          const selected = selectDisclosures(
            withoutSdAlg(expected.payload),
            serialized,
            frameOf(keptPaths),
          );
          const claims = getClaimsSync<JsonObject>(
            expected.payload,
            selected.map((item) =>
              Disclosure.fromArray(
                item.key === undefined
                  ? [item.salt, item.value]
                  : [item.salt, item.key, item.value],
              ),
            ),
            nodeHasher,
          );

          expect(selected.map((item) => item.encoded).sort()).toEqual(
            [...withhold.expected.disclosures].sort(),
          );
          expect(claims.content).toEqual(withhold.expected.content);
        },
      );
    });
  });
});
