// The rule lives in @trustpoint/verifier, the publishable package every verifier uses; re-exported
// here so the APIs and the anchoring engine keep importing the domain and there is one implementation.
export {
  ASSET_HASH_DOMAIN_V2,
  ASSET_HASH_VERSION_2,
  assetHash,
  assetHashV2,
  evidenceHash,
  type AssetHashInput,
  type AssetHashV2Input,
  type AssetHashVersion,
  type EvidenceHashInput,
} from '@trustpoint/verifier';
