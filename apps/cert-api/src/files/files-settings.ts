/** 2 GiB: the default upload limit (`MAX_FILE_BYTES`); larger files get 413. */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3;

/** Uploaded files: where published ones live and how large an upload may be. */
export interface FilesSettings {
  /**
   * Root of the content-addressed store of published files (`<dir>/<aa>/<sha256>`); uploads being
   * published are first written under `<dir>/.incoming`, on the same file system, so that moving
   * them into place is an atomic rename.
   */
  dir: string;
  /** Largest accepted file, in bytes; larger uploads are refused with 413. */
  maxFileBytes: number;
}
