import { describe, expect, it } from 'vitest';

import {
  fileCertificateBodyPartSchema,
  fileCertificateBodySchema,
} from './file-certificate-body.js';

describe('fileCertificateBodySchema', () => {
  it('when only name and description are given, then the body is valid', () => {
    expect(fileCertificateBodySchema.parse({ name: 'Deed', description: '' })).toEqual({
      name: 'Deed',
      description: '',
    });
  });

  it('when every optional field is given, then they are kept', () => {
    const body = {
      name: 'Deed',
      description: 'Scanned deed',
      content: { pages: 2 },
      public: true,
      expires: 1798761600000,
      certificatePin: '1234',
      externalId: 'deed-77',
    };

    expect(fileCertificateBodySchema.parse(body)).toEqual(body);
  });

  it('when required fields are missing, then each one is reported', () => {
    const result = fileCertificateBodySchema.safeParse({});

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'name',
      'description',
    ]);
  });

  it('when a key is misspelt, then it is reported instead of ignored', () => {
    // Arrange
    const body = { name: 'Deed', description: 'x', externalID: 'deed-77' };

    // Act
    const result = fileCertificateBodySchema.safeParse(body);

    // Assert
    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(result.error?.issues[0]?.message).toContain('externalID');
  });

  it.each([
    ['public as text', { public: 'true' }, 'public'],
    ['a fractional expiry', { expires: 1.5 }, 'expires'],
    ['content that is an array', { content: [1] }, 'content'],
    ['an empty PIN', { certificatePin: '' }, 'certificatePin'],
  ])('when the body has %s, then that field is reported', (_, extra, field) => {
    const result = fileCertificateBodySchema.safeParse({
      name: 'Deed',
      description: 'x',
      ...extra,
    });

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });
});

describe('fileCertificateBodyPartSchema', () => {
  it('when the multipart field holds JSON text, then it is parsed and validated', () => {
    expect(fileCertificateBodyPartSchema.parse('{"name":"Deed","description":"x"}')).toEqual({
      name: 'Deed',
      description: 'x',
    });
  });

  it('when the multipart field is not JSON, then one issue says so', () => {
    const result = fileCertificateBodyPartSchema.safeParse('name=Deed');

    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.message).toBe('Expected a JSON object');
  });
});
