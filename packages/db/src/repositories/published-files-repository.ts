import type { Queryable } from '../queryable.js';

/** A file published in the content-addressed file repository (`GET /files/{fileHash}`). */
export interface PublishedFile {
  /** `sha256(file bytes)`, 64 lowercase hex characters: the file's address. */
  fileHash: string;
  size: number;
  /** What `GET /files` answers as Content-Type. */
  mediaType: string;
  /** Relative to the files directory, so the directory can move. */
  storagePath: string;
  createdAt: Date;
}

export type NewPublishedFile = Omit<PublishedFile, 'createdAt'>;

interface PublishedFileRow {
  file_hash: string;
  size: number | string;
  media_type: string;
  storage_path: string;
  created_at: Date;
}

function toPublishedFile(row: PublishedFileRow): PublishedFile {
  return {
    fileHash: row.file_hash,
    // int8 arrives as a string through pg and as a number through PGlite.
    size: Number(row.size),
    mediaType: row.media_type,
    storagePath: row.storage_path,
    createdAt: row.created_at,
  };
}

/**
 * Records a published file; false when that content is already recorded (the first record wins,
 * so publishing the same bytes again never duplicates anything). Concurrent inserts of one hash
 * wait for each other on the primary key, so exactly one returns true.
 */
export async function insertPublishedFile(db: Queryable, file: NewPublishedFile): Promise<boolean> {
  const rows = await db<PublishedFileRow>('published_files')
    .insert({
      file_hash: file.fileHash,
      size: file.size,
      media_type: file.mediaType,
      storage_path: file.storagePath,
    })
    .onConflict('file_hash')
    .ignore()
    .returning('file_hash');
  return rows.length === 1;
}

export async function findPublishedFile(
  db: Queryable,
  fileHash: string,
): Promise<PublishedFile | undefined> {
  const row = await db<PublishedFileRow>('published_files').where('file_hash', fileHash).first();
  return row === undefined ? undefined : toPublishedFile(row);
}

/**
 * Holds a transaction-scoped lock on one file hash, so that whoever records a file and whoever
 * removes an unrecorded one from disk never interleave. Call inside a transaction.
 */
export async function lockPublishedFileHash(trx: Queryable, fileHash: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
    `published_files:${fileHash}`,
  ]);
}

/**
 * Removes the record of a published file that no certificate has (any more), e.g. once the
 * certificate that published it was withdrawn; true when it removed one. Call under
 * `lockPublishedFileHash`, and remove the bytes in the same transaction.
 */
export async function unpublishUncertifiedFile(db: Queryable, fileHash: string): Promise<boolean> {
  const removed = await db('published_files')
    .where('file_hash', fileHash)
    .whereNotExists(db('certificates').where('file_hash', fileHash).select(db.raw('1')))
    .delete();
  return removed === 1;
}
