import { readFileSync } from 'node:fs';

import * as verifier from '@trustpoint/verifier';
import { describe, expect, it } from 'vitest';

import * as domain from '../src/index.js';

// The published rules live in @trustpoint/verifier (which runs every vector of its
// test-vectors.json); the domain re-exports them, so the APIs and an outside verifier cannot drift.
const vectors = JSON.parse(
  readFileSync(require.resolve('@trustpoint/verifier/test-vectors.json'), 'utf8'),
) as {
  certificateHash: { type: string; input: { file?: { utf8?: string } }; expected: unknown }[];
};

describe('rules shared with @trustpoint/verifier', () => {
  it.each([
    'sha256',
    'doubleHash',
    'canonicalJson',
    'contentCertificateHash',
    'assetCertificateHash',
    'urlCertificateHash',
    'revocationTrustPointHash',
    'signatureTrustPointHash',
    'assetHash',
    'evidenceHash',
    'trustPointKey',
    'evidenceKey',
    'encodeGetTrustPointCall',
    'encodeGetEvidenceCall',
    'getTrustPointRequest',
    'getEvidenceRequest',
    'decodeGetTrustPointResponse',
    'decodeGetEvidenceResponse',
    'trustPointTypeName',
    'UnexpectedEthCallResponseError',
  ] as const)('when the domain exports %s, then it is the verifier own', (name) => {
    expect(domain[name]).toBe(verifier[name]);
  });

  it('when the domain hashes files with Node native SHA-256, then it gives the vectors', () => {
    const files = vectors.certificateHash.filter(
      (vector) => vector.type === 'file' && vector.input.file?.utf8 !== undefined,
    );

    expect(files.length).toBeGreaterThan(0);
    for (const vector of files) {
      const bytes = new TextEncoder().encode(vector.input.file?.utf8);
      expect(domain.hashFileBytes(bytes)).toEqual({
        ...(vector.expected as object),
        hashDomain: null,
      });
    }
  });
});
