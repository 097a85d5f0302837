import {
  findPublishedFile,
  insertPublishedFile,
  lockPublishedFileHash,
  unpublishUncertifiedFile,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import { publishedFileStoreOf } from '../files/files-settings.js';
import { storagePathOf } from '../files/published-file-store.js';
import type { CertificateServices } from './certificate-services.js';
import {
  createCertificate,
  type CertificateDraft,
  type CreateCertificateOptions,
} from './create-certificate.js';
import type { ReceivedFile } from './file-certificate-draft.js';

/** A received file to publish: its bytes wait in the store under a temporary name. */
export interface FileToPublish {
  file: ReceivedFile;
  /** The temporary name (a path, an object key) the store gave it. */
  incomingPath: string;
}

/**
 * Creates a file certificate and, when asked, publishes the file: its `published_files` row is
 * written and the file moved to its content address (renamed on disk, copied in a bucket) inside the
 * certificate's transaction, so a
 * refused request (409, 429, ...) records and stores nothing. A file already published stays as it
 * is (one row, one copy). If the transaction fails after the rename, the file is removed again
 * unless a row for it exists by then; if the certificate is withdrawn after a 503, the row and the
 * file it made go too, unless another certificate of the same bytes exists. The hash lock keeps
 * these checks and a concurrent publisher of the same bytes from interleaving.
 */
export async function createFileCertificate(
  services: CertificateServices,
  user: User,
  draft: CertificateDraft,
  options: Pick<
    CreateCertificateOptions,
    'qualified' | 'acknowledgement' | 'requestId' | 'idempotency'
  > & {
    publish: FileToPublish | null;
  },
): Promise<CertificateRecord> {
  const { publish, ...creation } = options;
  if (publish === null) return createCertificate(services, user, draft, creation);

  const store = publishedFileStoreOf(services.files);
  const { fileHash } = publish.file;
  // Set inside the transaction's callback; an object, so the catch below sees the change.
  const outcome = { movedHere: false };
  try {
    return await createCertificate(services, user, draft, {
      ...creation,
      inTransaction: async (trx) => {
        await lockPublishedFileHash(trx, fileHash);
        const recorded = await insertPublishedFile(trx, {
          fileHash,
          size: publish.file.size,
          mediaType: publish.file.mediaType,
          storagePath: storagePathOf(fileHash),
        });
        // A recorded file whose bytes went missing is restored from this upload.
        if (recorded || !(await store.isStored(fileHash))) {
          await store.publish(publish.incomingPath, fileHash);
          outcome.movedHere = recorded;
        }
      },
    });
  } catch (error) {
    if (outcome.movedHere) {
      await services.knex.transaction(async (trx) => {
        await lockPublishedFileHash(trx, fileHash);
        // A certificate withdrawn after a 503 takes the publication it made with it, unless
        // another certificate of the same bytes exists by now.
        if (
          !(await findPublishedFile(trx, fileHash)) ||
          (await unpublishUncertifiedFile(trx, fileHash))
        ) {
          await store.remove(fileHash);
        }
      });
    }
    throw error;
  }
}
