import { localFileStore, type PublishedFileStore } from './published-file-store.js';

/** 2 GiB: the default upload limit (`MAX_FILE_BYTES`); larger files get 413. */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3;

/** Uploaded files: where published ones live and how large an upload may be. */
export interface FilesSettings {
  /**
   * Root of the local content-addressed store of published files (`<dir>/<aa>/<sha256>`); uploads
   * being published are first written under `<dir>/.incoming`, on the same file system, so that
   * moving them into place is an atomic rename. Used unless `store` is given.
   */
  dir: string;
  /** Where published files live instead of `dir`: an S3-compatible bucket (`s3FileStore`). */
  store?: PublishedFileStore | undefined;
  /** Largest accepted file, in bytes; larger uploads are refused with 413. */
  maxFileBytes: number;
}

/** The store published files go to: `store`, or the local directory. */
export function publishedFileStoreOf(files: FilesSettings): PublishedFileStore {
  return files.store ?? localFileStore(files.dir);
}
