import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  ASSET_HASH_DOMAIN_V2,
  assetHash,
  assetHashV2,
  assetPayloadV2,
  canonicalJson,
  versionedAssetHash,
  type JsonObject,
} from '../src/index.js';

// The vectors come from a second implementation (test/vectors/generate-asset-hash-v2.py). Each is
// checked twice: against this package, and with Node's own SHA-256 over the vector's canonical
// text and preimage, so the file is not only consistent with the code that passes it.

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const fileSchema = z.strictObject({
  about: z.string(),
  version: z.literal(2),
  rule: z.string(),
  domain: z.string(),
  assetHash: z
    .array(
      z.strictObject({
        description: z.string().min(1),
        input: z.strictObject({
          trackID: z.string(),
          owner: z.string(),
          assetId: z.string(),
          data: z.custom<JsonObject>(
            (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
          ),
        }),
        canonicalPayload: z.string(),
        preimageHex: z.string().regex(/^(?:[0-9a-f]{2})+$/),
        innerDigestHex: hash,
        expected: hash,
        versionOneHash: hash,
      }),
    )
    .min(1),
});

const file = fileSchema.parse(
  JSON.parse(readFileSync(join(__dirname, 'vectors', 'asset-hash-v2.json'), 'utf8')),
);

const nodeSha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

describe('asset hash version 2 test vectors', () => {
  it('when the file names its domain, then it is the one this package prepends', () => {
    expect(file.domain).toBe(ASSET_HASH_DOMAIN_V2);
  });

  describe.each(file.assetHash)('$description', (vector) => {
    it('when this package hashes it, then the payload and hash match', () => {
      expect(canonicalJson(assetPayloadV2(vector.input))).toBe(vector.canonicalPayload);
      expect(assetHashV2(vector.input)).toBe(vector.expected);
      expect(versionedAssetHash({ hashVersion: 2, ...vector.input })).toBe(vector.expected);
    });

    it("when Node's SHA-256 hashes the domain and the canonical text, then the hash matches", () => {
      const preimage = Buffer.concat([
        Buffer.from(file.domain, 'utf8'),
        Buffer.from(vector.canonicalPayload, 'utf8'),
      ]);
      const inner = nodeSha256(preimage);

      expect(preimage.toString('hex')).toBe(vector.preimageHex);
      expect(inner.toString('hex')).toBe(vector.innerDigestHex);
      expect(nodeSha256(inner).toString('hex')).toBe(vector.expected);
    });

    it('when hashed by version 1, then it is the version 1 hash, never the version 2 one', () => {
      const { assetId, data } = vector.input;

      expect(assetHash({ assetId, data })).toBe(vector.versionOneHash);
      expect(versionedAssetHash({ hashVersion: 1, assetId, data })).toBe(vector.versionOneHash);
      expect(vector.versionOneHash).not.toBe(vector.expected);
    });
  });

  it('when two owners hold assets with the same assetId and data, then their version 2 hashes differ and their version 1 hashes do not', () => {
    const sameAsset = file.assetHash.filter(
      (vector) => vector.versionOneHash === file.assetHash[0]?.versionOneHash,
    );

    expect(sameAsset.length).toBeGreaterThanOrEqual(3);
    expect(new Set(sameAsset.map((vector) => vector.expected)).size).toBe(sameAsset.length);
  });
});
