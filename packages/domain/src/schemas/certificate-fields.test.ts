import { describe, expect, it } from 'vitest';

import { CERTIFICATE_EXAMPLE } from './certificate.js';
import { certificateFieldsSchema } from './certificate-fields.js';
import { certificatePageSchema } from './certificate-list.js';

describe('certificateFieldsSchema', () => {
  it.each([
    ['a whole certificate', CERTIFICATE_EXAMPLE],
    ['certID and one member of data', { certID: CERTIFICATE_EXAMPLE.certID, data: { name: 'n' } }],
    ['one member of access', { access: { public: true } }],
    ['nothing, when every field named is missing', {}],
  ])('when a listed certificate holds %s, then it is accepted as is', (_, listed) => {
    expect(certificateFieldsSchema.parse(listed)).toEqual(listed);
  });

  it('when a projected member is malformed, then the issue points at it', () => {
    const result = certificateFieldsSchema.safeParse({ data: { hash: 'not-a-hash' } });

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['data.hash']);
  });

  it('when a page holds projected certificates, then the page schema accepts it', () => {
    const page = {
      certificates: [{ certID: CERTIFICATE_EXAMPLE.certID }, {}],
      pagination: { offset: 0, limit: 2, total: 2, order: 'desc' },
    };

    expect(certificatePageSchema.parse(page)).toEqual(page);
  });
});
