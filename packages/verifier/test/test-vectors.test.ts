import { describe, expect, it } from 'vitest';

import {
  assetCertificateHash,
  assetHash,
  CanonicalJsonError,
  canonicalJson,
  canonicalJsonBytes,
  contentCertificateHash,
  decodeGetEvidenceResponse,
  decodeGetTrustPointResponse,
  doubleHash,
  encodeGetEvidenceCall,
  encodeGetTrustPointCall,
  evidenceHash,
  evidenceKey,
  evidenceTrustPointHash,
  fileCertificateHash,
  getTrustPointRequest,
  hashFileStream,
  revocationSentence,
  revocationTrustPointHash,
  sha256,
  signatureTrustPointHash,
  trustPointKey,
  UnexpectedEthCallResponseError,
  urlCertificateHash,
} from '../src/index.js';
import { bytesOf, loadTestVectors } from './test-vector-file.js';
import { nextTick } from './next-tick.js';

// Every vector of the published file is checked against the implementation.
const vectors = loadTestVectors();

function doubleFromIeee754Hex(bits: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

async function* inChunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += size) {
    await nextTick();
    yield bytes.subarray(offset, offset + size);
  }
}

describe('test vectors', () => {
  describe('sha256', () => {
    it.each(vectors.sha256)('when hashing $description, then the digest matches', (vector) => {
      expect(sha256(bytesOf(vector.input))).toBe(vector.expected);
    });
  });

  describe('doubleHash', () => {
    it.each(vectors.doubleHash)('when double hashing $description, then it matches', (vector) => {
      const bytes = bytesOf(vector.input);

      expect(sha256(bytes)).toBe(vector.innerDigestHex);
      expect(doubleHash(bytes)).toBe(vector.expected);
    });
  });

  describe('canonicalJson', () => {
    it.each(vectors.canonicalJson.values)(
      'when canonicalizing $description, then text, bytes and hash match',
      (vector) => {
        const value: unknown = JSON.parse(vector.inputJsonText);

        const bytes = canonicalJsonBytes(value);

        expect(canonicalJson(value)).toBe(vector.expected);
        expect(Buffer.from(bytes).toString('hex')).toBe(vector.expectedUtf8Hex);
        expect(sha256(bytes)).toBe(vector.expectedSha256);
      },
    );

    it.each(vectors.canonicalJson.numbers)(
      'when serializing the number of $description, then the text matches',
      (vector) => {
        const value = doubleFromIeee754Hex(vector.ieee754Hex);

        if ('rejected' in vector) {
          expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
        } else {
          expect(canonicalJson(value)).toBe(vector.expected);
        }
      },
    );
  });

  describe('certificateHash', () => {
    it.each(vectors.certificateHash)(
      'when hashing $description, then it matches',
      async (vector) => {
        switch (vector.type) {
          case 'file': {
            const bytes = bytesOf(vector.input.file);
            expect(fileCertificateHash(bytes)).toEqual({
              hash: vector.expected.hash,
              fileHash: vector.expected.fileHash,
            });
            expect(await hashFileStream(inChunks(bytes, 4099))).toEqual({
              ...vector.expected,
              hashDomain: null,
            });
            break;
          }
          case 'content':
            expect(canonicalJson(vector.input.content)).toBe(vector.canonical);
            expect(contentCertificateHash(vector.input.content)).toBe(vector.expected.hash);
            break;
          case 'asset':
            expect(canonicalJson(vector.input)).toBe(vector.canonical);
            expect(assetCertificateHash(vector.input)).toBe(vector.expected.hash);
            break;
          case 'url':
            expect(urlCertificateHash(bytesOf(vector.input.bytesReceived))).toBe(
              vector.expected.hash,
            );
            break;
        }
      },
    );
  });

  describe('trustPointHash', () => {
    it.each(vectors.trustPointHash)('when hashing $description, then it matches', (vector) => {
      switch (vector.type) {
        case 'Evidence':
          expect(evidenceTrustPointHash(vector.input.certificateHash)).toBe(vector.expected);
          break;
        case 'Revocation':
          expect(revocationSentence(vector.input.certId)).toBe(vector.sentence);
          expect(revocationTrustPointHash(vector.input.certId)).toBe(vector.expected);
          break;
        case 'Signature':
          expect(signatureTrustPointHash(bytesOf(vector.input.signature))).toBe(vector.expected);
          break;
      }
    });
  });

  describe('assetHash', () => {
    it.each(vectors.assetHash)(
      'when hashing an asset with $description, then it matches',
      (vector) => {
        expect(canonicalJson(vector.input)).toBe(vector.canonical);
        expect(assetHash(vector.input)).toBe(vector.expected);
      },
    );
  });

  describe('evidenceHash', () => {
    it.each(vectors.evidenceHash)(
      'when hashing an evidence with $description, then it matches',
      (vector) => {
        expect(canonicalJson(vector.input)).toBe(vector.canonical);
        expect(evidenceHash(vector.input)).toBe(vector.expected);
      },
    );
  });

  describe('recordKey', () => {
    it.each(vectors.recordKey)('when deriving the $description, then it matches', (vector) => {
      const { id, timestamp } = vector.input;

      const key =
        vector.kind === 'trustPoint' ? trustPointKey(id, timestamp) : evidenceKey(id, timestamp);

      expect(key).toBe(vector.expected);
    });
  });

  describe('callData', () => {
    it.each(vectors.callData)('when encoding $description, then it matches', (vector) => {
      const data =
        vector.function === 'getTrustPoint'
          ? encodeGetTrustPointCall(vector.input.certId, vector.input.timestamp)
          : encodeGetEvidenceCall(vector.input.assetHash, vector.input.timestamp);

      expect(data.startsWith(vector.selector)).toBe(true);
      expect(data).toBe(vector.expected);
    });
  });

  describe('ethCallRequest', () => {
    it.each(vectors.ethCallRequest)('when building the $description, then it matches', (vector) => {
      const { smartContract, certId, timestamp, id } = vector.input;

      expect(getTrustPointRequest({ smartContract, certId, timestampMs: timestamp, id })).toEqual(
        vector.expected,
      );
    });
  });

  describe('ethCallResponse', () => {
    it.each(vectors.ethCallResponse)(
      'when decoding $description, then the outcome matches',
      (vector) => {
        const decode =
          vector.function === 'getTrustPoint'
            ? decodeGetTrustPointResponse
            : decodeGetEvidenceResponse;

        if ('unexpected' in vector.expected) {
          expect(() => decode(vector.response)).toThrow(UnexpectedEthCallResponseError);
        } else {
          expect(decode(vector.response)).toEqual(vector.expected);
        }
      },
    );
  });
});
