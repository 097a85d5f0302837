// The trust document a service publishes (`/.well-known/trustpoint.json`): one format, the
// verifier's, which reads it.
export {
  readTrustDocument,
  TRUST_DOCUMENT_FORMAT,
  TRUST_DOCUMENT_PATH,
  type TrustDocument,
  type TrustDocumentNetwork,
} from '@trustpoint/verifier';
