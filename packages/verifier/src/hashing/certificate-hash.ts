import { canonicalJsonBytes, type JsonObject } from './canonical-json.js';
import { hashFileBytes } from './file-hasher.js';
import { doubleHash } from './sha256.js';

/**
 * Certificate `data.hash` rules, one per certificate type (DESIGN.md section 3). Each returns
 * 64 lowercase hex characters. Large files should go through `hashFileStream` instead.
 */

/** file: `hash = doubleHash(bytes)`, and `fileHash = sha256(bytes)` so `sha256sum` finds it. */
export function fileCertificateHash(fileBytes: Uint8Array): { hash: string; fileHash: string } {
  const { hash, fileHash } = hashFileBytes(fileBytes);
  return { hash, fileHash };
}

/** content: `doubleHash(JCS(content))`. */
export function contentCertificateHash(content: JsonObject): string {
  return doubleHash(canonicalJsonBytes(content));
}

/** A bound of an asset certificate: a timestamp or a caller-defined label, hashed as sent. */
export type AssetCertificateBound = number | string;

export interface AssetCertificateInput {
  assetId: string;
  from?: AssetCertificateBound | undefined;
  to?: AssetCertificateBound | undefined;
  content?: JsonObject | undefined;
}

/** asset: `doubleHash(JCS({assetId, from, to, content}))`, absent members omitted (not null). */
export function assetCertificateHash(input: AssetCertificateInput): string {
  const { assetId, from, to, content } = input;
  // Built member by member so extra properties on `input` can never leak into the hash.
  return doubleHash(
    canonicalJsonBytes({
      assetId,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...(content === undefined ? {} : { content }),
    }),
  );
}

/** url: `doubleHash(bytes received)` when the service fetched the URL at creation. */
export function urlCertificateHash(bytesReceived: Uint8Array): string {
  return doubleHash(bytesReceived);
}
