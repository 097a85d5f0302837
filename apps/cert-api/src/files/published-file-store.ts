import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
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
