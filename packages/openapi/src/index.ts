export {
  checkCommittedDocument,
  COMMITTED_DOCUMENTS,
  documentPath,
  documentText,
  firstDifference,
  type DocumentCheck,
  type DocumentName,
} from './committed-documents.js';
