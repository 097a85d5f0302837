import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The content-addressed store of published files: a file lives at `<dir>/<aa>/<sha256>`, where
 * `aa` is the first two hex characters of its hash (at most 256 entries per directory level).
 * Paths are built only from a validated hex digest, never from anything else the caller sent.
 */

const INCOMING_DIR = '.incoming';
const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** Where a file is stored, relative to the store's directory (what `published_files` records). */
export function storagePathOf(fileHash: string): string {
  if (!HEX_DIGEST.test(fileHash)) throw new Error(`not a sha256 hex digest: ${fileHash}`);
  return `${fileHash.slice(0, 2)}/${fileHash}`;
}

export function absolutePathOf(dir: string, storagePath: string): string {
  return join(dir, ...storagePath.split('/'));
}

/** A file being received, written next to the store so that publishing it is a rename. */
export interface IncomingFile {
  path: string;
  stream: WriteStream;
}

export async function createIncomingFile(dir: string): Promise<IncomingFile> {
  const incomingDir = join(dir, INCOMING_DIR);
  await mkdir(incomingDir, { recursive: true });
  const path = join(incomingDir, `${randomUUID()}.part`);
  // `wx`: never follow or reuse something already there.
  return { path, stream: createWriteStream(path, { flags: 'wx' }) };
}

/**
 * Removes a file that was received but not published; nothing to do once it was moved. Its writer,
 * when given, is closed first: a file removed while its opening is still under way would reappear.
 */
export async function discardIncomingFile(path: string, writer?: WriteStream): Promise<void> {
  if (writer !== undefined && !writer.closed) {
    const closed = new Promise<void>((resolve) => {
      writer.once('close', () => {
        resolve();
      });
    });
    writer.destroy();
    await closed;
  }
  await rm(path, { force: true });
}

/**
 * Moves a received file to its content address atomically (rename on one file system): readers
 * see either no file or the whole file. Same address means same bytes, so replacing a file that is
 * already there changes nothing a reader could see.
 */
export async function moveIntoStore(
  dir: string,
  incomingPath: string,
  fileHash: string,
): Promise<string> {
  const storagePath = storagePathOf(fileHash);
  const target = absolutePathOf(dir, storagePath);
  await mkdir(join(dir, fileHash.slice(0, 2)), { recursive: true });
  await rename(incomingPath, target);
  return storagePath;
}

export async function isStored(dir: string, fileHash: string): Promise<boolean> {
  try {
    return (await stat(absolutePathOf(dir, storagePathOf(fileHash)))).isFile();
  } catch {
    return false;
  }
}

export async function removeFromStore(dir: string, fileHash: string): Promise<void> {
  await rm(absolutePathOf(dir, storagePathOf(fileHash)), { force: true });
}

/** A file being received into a store: write its bytes to `stream`, then await `stored()`. */
export interface IncomingObject {
  /** Where the bytes wait until published (a path, an object key): what `publish` takes. */
  ref: string;
  stream: Writable;
  /** Resolves once every byte written is durably in the store (after `stream` finished). */
  stored(): Promise<void>;
  /** Stops receiving and removes whatever was written. */
  abort(): Promise<void>;
}

/**
 * Where published files live: the local directory (the embedded default) or an S3-compatible
 * bucket. Files are received under a temporary name while they are hashed, then published under
 * their content address `<aa>/<sha256>` (what `published_files.storage_path` records), which
 * readers see whole or not at all.
 */
export interface PublishedFileStore {
  /** `local` or `s3`, for logs. */
  readonly kind: string;
  createIncoming(): Promise<IncomingObject>;
  /** Removes a received file that was not published; nothing to do once it was. */
  discardIncoming(ref: string): Promise<void>;
  /** Moves a received file to its content address; returns the storage path. */
  publish(ref: string, fileHash: string): Promise<string>;
  isStored(fileHash: string): Promise<boolean>;
  remove(fileHash: string): Promise<void>;
  /** The size of a stored file; rejects when its bytes are missing. */
  size(storagePath: string): Promise<number>;
  /** The stored bytes, or those from `start` to `end` inclusive. */
  read(storagePath: string, range?: ByteRange): Promise<Readable>;
}

export interface ByteRange {
  start: number;
  end: number;
}

/** The content-addressed store in a local directory (`<dir>/<aa>/<sha256>`, renamed into place). */
export function localFileStore(dir: string): PublishedFileStore {
  return {
    kind: 'local',
    async createIncoming() {
      const incoming = await createIncomingFile(dir);
      const closed = new Promise<void>((resolve, reject) => {
        incoming.stream.once('close', resolve);
        incoming.stream.once('error', reject);
      });
      closed.catch(() => undefined);
      return {
        ref: incoming.path,
        stream: incoming.stream,
        stored: () => closed,
        abort: () => discardIncomingFile(incoming.path, incoming.stream),
      };
    },
    discardIncoming: (ref) => discardIncomingFile(ref),
    publish: (ref, fileHash) => moveIntoStore(dir, ref, fileHash),
    isStored: (fileHash) => isStored(dir, fileHash),
    remove: (fileHash) => removeFromStore(dir, fileHash),
    size: async (storagePath) => (await stat(absolutePathOf(dir, storagePath))).size,
    read: (storagePath, range) =>
      Promise.resolve(
        createReadStream(
          absolutePathOf(dir, storagePath),
          range === undefined ? {} : { start: range.start, end: range.end },
        ),
      ),
  };
}
