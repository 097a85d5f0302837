// The signed payload of a qualified signature is a rule every verifier needs, so it lives in
// @trustpoint/verifier; the certificate API signs exactly what an outside verifier rebuilds.
export {
  qualifiedSignaturePayload,
  qualifiedSignatureTrustPointHash,
  verifyQualifiedSignature,
  QUALIFIED_SIGNATURE_ALGORITHMS,
  type SignatureCheck,
  type SignedCertificateFields,
} from '@trustpoint/verifier';
