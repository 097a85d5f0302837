// Certificate hash version 2 (issue #24) lives in @trustpoint/verifier, the publishable package
// every verifier uses; re-exported here so the APIs keep importing the domain (one implementation).
export {
  CERTIFICATE_HASH_VERSION_2,
  certificateHashVersion,
  createDisclosableCertificate,
  formatDisclosurePath,
  readDisclosableCertificate,
  SelectiveDisclosureError,
  withholdCertificateFields,
  type DisclosableCertificateDraft,
  type DisclosurePath,
  type SelectiveDisclosureErrorCode,
} from '@trustpoint/verifier';
