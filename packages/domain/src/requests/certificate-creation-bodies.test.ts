import { describe, expect, it } from 'vitest';

import { assetCertificateBodySchema } from './asset-certificate-body.js';
import { contentCertificateBodySchema } from './content-certificate-body.js';
import { urlCertificateBodySchema } from './url-certificate-body.js';

const common = { name: 'Cert', description: 'd' };

describe('contentCertificateBodySchema', () => {
  it('when content is present, then the body is valid', () => {
    expect(contentCertificateBodySchema.parse({ ...common, content: { a: 1 } }).content).toEqual({
      a: 1,
    });
  });

  it('when content is missing, then it is reported', () => {
    const result = contentCertificateBodySchema.safeParse(common);

    expect(result.error?.issues[0]?.path).toEqual(['content']);
  });
});

describe('assetCertificateBodySchema', () => {
  it('when from and to are timestamps or labels, then both forms are accepted', () => {
    const body = { ...common, assetId: 'P-42', from: 1767225600000, to: 'Rotterdam', content: {} };

    expect(assetCertificateBodySchema.parse(body)).toEqual(body);
  });

  it('when the assetId is missing or from is an object, then both are reported', () => {
    const result = assetCertificateBodySchema.safeParse({ ...common, from: { at: 1 } });

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['assetId', 'from']);
  });
});

describe('urlCertificateBodySchema', () => {
  it('when the url is https, then the body is valid', () => {
    expect(
      urlCertificateBodySchema.safeParse({ ...common, url: 'https://example.org/terms' }).success,
    ).toBe(true);
  });

  it.each([['ftp://example.org/file'], ['not a url'], ['javascript:alert(1)']])(
    'when the url is %s, then it is rejected',
    (url) => {
      expect(urlCertificateBodySchema.safeParse({ ...common, url }).success).toBe(false);
    },
  );
});
