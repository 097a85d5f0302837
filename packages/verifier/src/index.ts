// Public API of @trustpoint/verifier: the published rules of Trustpoint and the verification of
// certificates and evidences against nodes the caller trusts. No Node-only API: runs in browsers.

// Hashing rules
export * from './hashing/asset-hash-v2.js';
export * from './hashing/canonical-json.js';
export * from './hashing/certificate-hash.js';
export * from './hashing/file-hasher.js';
export * from './hashing/hash-hex.js';
export * from './hashing/sha256.js';
export * from './hashing/track-hash.js';
export * from './hashing/trustpoint-hash.js';

// Certificate hash version 2: every shown field covered, content selectively disclosable (SD-JWT)
export * from './disclosure/certificate-members.js';
export * from './disclosure/certificate-payload-v2.js';
export * from './disclosure/disclosable-certificate.js';
export * from './disclosure/disclosure.js';
export * from './disclosure/disclosure-path.js';
export * from './disclosure/sd-payload.js';
export * from './disclosure/selective-disclosure-error.js';

// Salts and ids: the platform's CSPRNG, drawn in pooled blocks
export * from './random/random-pool.js';

// Reading a certificate or an evidence as every verifier does (no member named twice)
export * from './json/strict-json.js';

// Trustpoint types
export * from './trustpoint-type.js';

// On-chain keys, call encoding and reply decoding
export * from './chain/abi-encoding.js';
export * from './chain/bytes32.js';
export * from './chain/eth-call-reply.js';
export * from './chain/eth-call-request.js';
export * from './chain/evidence-lookup.js';
export * from './chain/record-key.js';
export * from './chain/revocation-status-lookup.js';
export * from './chain/selectors.js';
export * from './chain/trust-point-lookup.js';
export * from './chain/uint256.js';
export * from './chain/unexpected-eth-call-response-error.js';

// Qualified signatures
export * from './signature/qualified-signature.js';

// Who issued it: the domain an issuing account proved with a DNS TXT record
export * from './identity/dns-over-https.js';
export * from './identity/issuer-domain-record.js';
export * from './identity/issuer-identity.js';

// Trust: what a verifier trusts, and the documents services publish
export * from './trust/development-accounts.js';
export * from './trust/local-instance.js';
export * from './trust/registry-successors.js';
export * from './trust/trust.js';
export * from './trust/trust-document.js';
export * from './trust/published-trust-document.js';

// Verification
export * from './chain/record-write.js';
export * from './rpc/json-rpc-call.js';
export * from './rpc/json-rpc-nodes.js';
export * from './rpc/node-identity.js';
export * from './rpc/public-endpoints.js';
export * from './verify/record-standing.js';
export * from './verify/revocation-status.js';
export * from './verify/node-reads.js';
export * from './verify/on-chain-read.js';
export * from './verify/record-input.js';
export * from './verify/issuer-check.js';
export * from './verify/shown-text.js';
export * from './verify/rpc-urls.js';
export * from './verify/verify-certificate.js';
export * from './verify/verify-evidence.js';
