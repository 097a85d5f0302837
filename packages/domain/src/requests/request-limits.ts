/**
 * Size limits on caller-supplied text. The spec sets none; these are generous bounds so a
 * runaway client gets a 400 naming the field instead of filling the database.
 */
export const REQUEST_LIMITS = {
  nameMaxLength: 256,
  descriptionMaxLength: 4096,
  certificatePinMaxLength: 128,
  externalIdMaxLength: 256,
  assetIdMaxLength: 256,
  assetBoundMaxLength: 256,
  urlMaxLength: 2048,
  /** Levels of nested arrays and objects in a caller's JSON object (content, data, metadata). */
  jsonMaxDepth: 64,
  pageSizeDefault: 20,
  pageSizeMax: 100,
} as const;
