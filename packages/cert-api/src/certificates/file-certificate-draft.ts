import {
  DomainError,
  type FileCertificateBody,
  type FileHashes,
  type JsonObject,
} from '@trustpoint/domain';
import { commonDraftFields } from './certificate-drafts.js';
import type { CertificateDraft } from './create-certificate.js';

/** An uploaded file once received: its hashes and what its part said about it. */
export interface ReceivedFile extends FileHashes {
  /** The part's file name (no path), or null when it had none. */
  name: string | null;
  /** The part's media type when well formed, else `application/octet-stream`. */
  mediaType: string;
}

/** The member of `data.content` where the service records the certified file. */
export const FILE_CONTENT_KEY = 'file';

/**
 * A file certificate: `hash = doubleHash(bytes)` and `fileHash = sha256(bytes)` (DESIGN.md 3).
 * `data.content` is the caller's optional `content` plus `file: {name, mediaType, size}`, what the
 * service saw of the upload, so a reader knows which file the hash is of. The caller may not use
 * that member themselves.
 */
export function fileCertificateDraft(
  networkId: string,
  body: FileCertificateBody,
  file: ReceivedFile,
): CertificateDraft {
  const content: JsonObject = body.content ?? {};
  if (Object.hasOwn(content, FILE_CONTENT_KEY)) {
    throw new DomainError('validation', {
      detail: 'reserved content member',
      errors: [
        {
          field: `body.content.${FILE_CONTENT_KEY}`,
          error: 'Reserved: the service records the uploaded file here',
        },
      ],
    });
  }
  return {
    ...commonDraftFields(body),
    type: 'file',
    networkId,
    content: {
      ...content,
      [FILE_CONTENT_KEY]: { name: file.name, mediaType: file.mediaType, size: file.size },
    },
    hash: file.hash,
    fileHash: file.fileHash,
  };
}
