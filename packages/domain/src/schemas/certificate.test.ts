import { describe, expect, it } from 'vitest';

import { certificateListSchema } from './certificate-list.js';
import { certificateSchema } from './certificate.js';
import { successEnvelope, successEnvelopeSchema } from './success-envelope.js';

const HASH = 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447';

function sampleCertificate() {
  return {
    certID: 'did:trustpoint:certid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12',
    data: {
      name: 'Contract',
      description: 'Signed contract',
      type: 'file',
      content: { pages: 3 },
      issuer: 'did:user:auth0%7C42',
      issuedOn: 1767225600123,
      hash: HASH,
      fileHash: HASH,
    },
    metadata: [
      {
        type: 'Evidence',
        networkId: '31337',
        smartContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        transactionHash: `0x${'1f'.repeat(32)}`,
        trustPointHash: HASH,
        timestamp: 1767225600123,
        status: 'anchored',
      },
    ],
    access: { public: false, externalId: 'ext-1' },
    status: 'anchored',
  };
}

describe('certificateSchema', () => {
  it('when parsing a well-formed certificate, then it passes and networkId becomes a number', () => {
    // Arrange
    const input = sampleCertificate();

    // Act
    const certificate = certificateSchema.parse(input);

    // Assert
    expect(certificate.metadata[0]?.networkId).toBe(31337);
    expect(certificate.data.fileHash).toBe(HASH);
  });

  it.each([
    [
      'an uppercase hash',
      (c: ReturnType<typeof sampleCertificate>) => ({
        ...c,
        data: { ...c.data, hash: HASH.toUpperCase() },
      }),
      'data.hash',
    ],
    [
      'an unknown certificate type',
      (c: ReturnType<typeof sampleCertificate>) => ({ ...c, data: { ...c.data, type: 'video' } }),
      'data.type',
    ],
    [
      'an issuer that is not a user DID',
      (c: ReturnType<typeof sampleCertificate>) => ({ ...c, data: { ...c.data, issuer: 'alice' } }),
      'data.issuer',
    ],
    [
      'a 0x-prefixed trustPointHash',
      (c: ReturnType<typeof sampleCertificate>) => ({
        ...c,
        metadata: [{ ...c.metadata[0], trustPointHash: `0x${HASH}` }],
      }),
      'metadata.0.trustPointHash',
    ],
    [
      'an unknown trustpoint type',
      (c: ReturnType<typeof sampleCertificate>) => ({
        ...c,
        metadata: [{ ...c.metadata[0], type: 'Proof' }],
      }),
      'metadata.0.type',
    ],
    [
      'a malformed certID',
      (c: ReturnType<typeof sampleCertificate>) => ({ ...c, certID: 'cert-1' }),
      'certID',
    ],
  ])('when the certificate has %s, then the issue points at the field', (_, mutate, path) => {
    const result = certificateSchema.safeParse(mutate(sampleCertificate()));

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([path]);
  });
});

describe('successEnvelopeSchema', () => {
  it('when wrapping a certificate list, then the envelope and its payload are validated', () => {
    const schema = successEnvelopeSchema(certificateListSchema);
    const body = successEnvelope(200, 'Certificates retrieved', {
      certificates: [sampleCertificate()],
      pagination: { offset: 0, limit: 20, total: 1, order: 'desc' },
    });

    expect(schema.safeParse(body).success).toBe(true);
    expect(schema.safeParse({ ...body, data: { certificates: [] } }).success).toBe(false);
  });
});
