// Public API of @trustpoint/domain: pure rules shared by the APIs, the anchoring engine and verifiers.

// Resources (spec section 2)
export * from './anchoring/acknowledgement.js';
export * from './schemas/anchoring-status.js';
export * from './schemas/asset-fields.js';
export * from './schemas/asset-list.js';
export * from './schemas/asset.js';
export * from './schemas/certificate-fields.js';
export * from './schemas/certificate-list.js';
export * from './schemas/certificate-type.js';
export * from './schemas/certificate.js';
export * from './schemas/epoch-time.js';
export * from './schemas/evm-address.js';
export * from './schemas/evm-transaction-hash.js';
export * from './schemas/hash-hex.js';
export * from './schemas/integer-param.js';
export * from './schemas/json-object.js';
export * from './schemas/network-id.js';
export * from './schemas/network-summary.js';
export * from './schemas/pagination.js';
export * from './schemas/sort-order.js';
export * from './schemas/success-envelope.js';
export * from './schemas/text.js';
export * from './schemas/transaction.js';

// Requests validated at the edge
export * from './requests/add-evidence-body.js';
export * from './requests/asset-certificate-body.js';
export * from './requests/asset-list-query.js';
export * from './requests/boolean-param.js';
export * from './requests/certificate-access-changes-body.js';
export * from './requests/certificate-body-fields.js';
export * from './requests/certificate-list-query.js';
export * from './requests/content-certificate-body.js';
export * from './requests/create-asset-body.js';
export * from './requests/create-certificate-query.js';
export * from './requests/duplicate-member.js';
export * from './requests/fields-param.js';
export * from './requests/file-certificate-body.js';
export * from './requests/network-query.js';
export * from './requests/page-params.js';
export * from './requests/request-limits.js';
export * from './requests/url-certificate-body.js';

// Errors (spec section 7)
export * from './errors/domain-error.js';
export * from './errors/error-body-for.js';
export * from './errors/error-body.js';
export * from './errors/error-catalogue.js';
export * from './errors/to-error-body.js';
export * from './errors/validation-error-body.js';

// Credentials' scopes
export * from './scopes/api-scope.js';

// Trustpoint types
export * from './trustpoint/trustpoint-type.js';

// Identifiers
export * from './ids/account-id.js';
export * from './ids/cert-id.js';
export * from './ids/did-namespace.js';
export * from './ids/invalid-identifier-error.js';
export * from './ids/resource-id.js';
export * from './ids/track-id.js';
export * from './ids/user-did.js';
export * from './ids/uuid-v7.js';

// Hashing rules
export * from './hashing/canonical-json.js';
export * from './hashing/certificate-hash.js';
export * from './hashing/certificate-hash-v2.js';
export * from './hashing/file-hasher.js';
export * from './hashing/qualified-signature.js';
export * from './hashing/sha256.js';
export * from './hashing/track-hash.js';
export * from './hashing/trustpoint-hash.js';

// On-chain encoding
export * from './chain/bytes32.js';
export * from './chain/eth-call-reply.js';
export * from './chain/eth-call-request.js';
export * from './chain/evidence-lookup.js';
export * from './chain/evidence-repository-abi.js';
export * from './chain/explorer-verification.js';
export * from './chain/on-chain-record.js';
export * from './chain/record-key.js';
export * from './chain/trust-point-lookup.js';
export * from './chain/trust-point-registry-abi.js';
export * from './chain/uint256.js';
export * from './chain/unexpected-eth-call-response-error.js';
export * from './trust/trust-document.js';
