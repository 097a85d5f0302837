import { describe, expect, it } from 'vitest';

import { doubleHash } from './sha256.js';
import {
  evidenceTrustPointHash,
  revocationSentence,
  revocationTrustPointHash,
  signatureTrustPointHash,
} from './trustpoint-hash.js';

const CERT_ID = 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';

describe('trustpoint hashes', () => {
  it('when building the revocation sentence, then it has the exact published wording', () => {
    expect(revocationSentence(CERT_ID)).toBe(`Certificate ${CERT_ID} has been revoked`);
  });

  it('when hashing a revocation, then it is the double hash of the UTF-8 sentence', () => {
    // Arrange
    const sentence = Buffer.from(`Certificate ${CERT_ID} has been revoked`, 'utf8');

    // Act
    const hash = revocationTrustPointHash(CERT_ID);

    // Assert
    expect(hash).toBe(doubleHash(sentence));
  });

  it('when hashing a signature, then it is the double hash of the signature bytes', () => {
    const signature = Uint8Array.from([0x30, 0x45, 0x02, 0x21]);

    expect(signatureTrustPointHash(signature)).toBe(doubleHash(signature));
  });

  it('when given a certificate hash for an Evidence trustpoint, then it is returned unchanged', () => {
    const hash = 'ab'.repeat(32);

    expect(evidenceTrustPointHash(hash)).toBe(hash);
  });

  it.each([['AB'.repeat(32)], [`0x${'ab'.repeat(32)}`], ['ab']])(
    'when the Evidence certificate hash is %s, then it is rejected',
    (hash) => {
      expect(() => evidenceTrustPointHash(hash)).toThrow(TypeError);
    },
  );
});
