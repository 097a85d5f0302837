import { describe, expect, it } from 'vitest';

import { canonicalJsonBytes } from './canonical-json.js';
import {
  assetCertificateHash,
  contentCertificateHash,
  fileCertificateHash,
  urlCertificateHash,
} from './certificate-hash.js';
import { doubleHash, sha256 } from './sha256.js';

describe('fileCertificateHash', () => {
  it('when hashing a file, then hash is the double hash and fileHash what sha256sum prints', () => {
    // Arrange
    const file = Buffer.from('hello world\n');

    // Act
    const { hash, fileHash } = fileCertificateHash(file);

    // Assert
    expect(fileHash).toBe('a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447');
    expect(hash).toBe(doubleHash(file));
  });
});

describe('contentCertificateHash', () => {
  it('when hashing content, then it is the double hash of its canonical JSON', () => {
    const content = { b: [1, 2], a: 'x' };

    expect(contentCertificateHash(content)).toBe(doubleHash(Buffer.from('{"a":"x","b":[1,2]}')));
  });

  it('when two contents differ only in key order, then their hashes are equal', () => {
    expect(contentCertificateHash({ a: 1, b: 2 })).toBe(contentCertificateHash({ b: 2, a: 1 }));
  });
});

describe('assetCertificateHash', () => {
  it('when from and to are absent, then they are omitted rather than hashed as null', () => {
    const hash = assetCertificateHash({ assetId: 'A-1', content: { k: 1 } });

    expect(hash).toBe(doubleHash(canonicalJsonBytes({ assetId: 'A-1', content: { k: 1 } })));
    expect(hash).not.toBe(
      doubleHash(canonicalJsonBytes({ assetId: 'A-1', from: null, to: null, content: { k: 1 } })),
    );
  });

  it('when every member is present, then all four are hashed', () => {
    const input = { assetId: 'A-1', from: 'Valencia', to: 1767225600000, content: {} };

    expect(assetCertificateHash(input)).toBe(doubleHash(canonicalJsonBytes(input)));
  });

  it('when the input object carries extra properties, then they do not change the hash', () => {
    const withExtra = { assetId: 'A-1', from: 'x', name: 'not hashed' };

    expect(assetCertificateHash(withExtra)).toBe(
      assetCertificateHash({ assetId: 'A-1', from: 'x' }),
    );
  });
});

describe('urlCertificateHash', () => {
  it('when hashing the bytes received, then it is their double hash, not their sha256', () => {
    const body = Buffer.from('<html></html>');

    expect(urlCertificateHash(body)).toBe(doubleHash(body));
    expect(urlCertificateHash(body)).not.toBe(sha256(body));
  });
});
