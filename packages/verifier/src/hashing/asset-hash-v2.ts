import { canonicalJsonBytes, type JsonObject } from './canonical-json.js';
import { doubleHash, utf8Bytes } from './sha256.js';
import { assetHash as assetHashV1 } from './track-hash.js';

/**
 * Asset hash version 2 (issue #24). An asset's evidences are anchored under (assetHash, second),
 * and version 1 (`doubleHash(JCS({assetId, data}))`) is the same for every user with that assetId
 * and data: they shared one key space, so anyone who knew an asset's id and data could push its
 * owner's evidence seconds forward. Version 2 also covers the asset's trackID (unique per asset)
 * and its owner, so each asset has keys, and a clock, of its own; a verifier shows both as proven.
 */
export const ASSET_HASH_VERSION_2 = 2;

/**
 * Prepended to the payload's canonical text: no input of another rule (version 1 starts with `{`,
 * the certificate hash version 2 with `Trustpoint certificate`) hashes the same bytes.
 */
export const ASSET_HASH_DOMAIN_V2 = 'Trustpoint asset hash v2\n';

/** The asset hash versions this verifier knows; an asset without `hashVersion` is version 1. */
export type AssetHashVersion = 1 | typeof ASSET_HASH_VERSION_2;

export interface AssetHashV2Input {
  /** `did:<ns>:trackid:<id>`, unique per asset. */
  trackID: string;
  /** `did:user:<sub>` of the user who created the asset. */
  owner: string;
  assetId: string;
  data: JsonObject;
}

/** `{hashVersion: 2, trackID, owner, assetId, data}`: what a version 2 assetHash covers. */
export function assetPayloadV2({ trackID, owner, assetId, data }: AssetHashV2Input): JsonObject {
  return { hashVersion: ASSET_HASH_VERSION_2, trackID, owner, assetId, data };
}

/** `doubleHash(utf8(ASSET_HASH_DOMAIN_V2) ‖ JCS({hashVersion: 2, trackID, owner, assetId, data}))`. */
export function assetHashV2(input: AssetHashV2Input): string {
  const domain = utf8Bytes(ASSET_HASH_DOMAIN_V2);
  const canonical = canonicalJsonBytes(assetPayloadV2(input));
  const bytes = new Uint8Array(domain.length + canonical.length);
  bytes.set(domain, 0);
  bytes.set(canonical, domain.length);
  return doubleHash(bytes);
}

/** An asset's fields as a verifier reads them, by version; version 2 needs trackID and owner. */
export type VersionedAssetHashInput =
  | { hashVersion: 1; assetId: string; data: JsonObject }
  | ({ hashVersion: typeof ASSET_HASH_VERSION_2 } & AssetHashV2Input);

/** The assetHash of an asset by the rule its `hashVersion` names. */
export function versionedAssetHash(input: VersionedAssetHashInput): string {
  return input.hashVersion === ASSET_HASH_VERSION_2
    ? assetHashV2(input)
    : assetHashV1({ assetId: input.assetId, data: input.data });
}

/**
 * The fields of an asset's JSON its assetHash covers, by version, in the order a verifier shows
 * them. Every other field of the asset (`networkId`, `status`, and for version 1 `trackID` and
 * `owner`) is a claim of whoever handed the JSON over, except what the chain read establishes.
 */
export const ASSET_HASH_COVERS: Readonly<Record<AssetHashVersion, readonly string[]>> = {
  1: ['assetId', 'data'],
  2: ['hashVersion', 'trackID', 'owner', 'assetId', 'data'],
};
