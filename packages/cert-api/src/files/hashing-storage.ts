import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createFileHasher, type FileHasher, type FileHashes } from '@trustpoint/domain';
import type { Request } from 'express';
import multer, { type StorageEngine } from 'multer';
import type { IncomingObject, PublishedFileStore } from './published-file-store.js';

/** What the engine adds to multer's file object: the hashes (size included) and where it kept it. */
export interface HashedFileInfo extends FileHashes {
  /** Where the received bytes wait in the store (a path, an object key), or null when only hashed. */
  incomingPath: string | null;
}

export interface HashingStorageOptions {
  /** When set, each file is also written to this store (under a temporary name) while it is hashed. */
  keepInStore: PublishedFileStore | null;
  /**
   * Called when a file crosses multer's `fileSize` limit, once what was written of it is removed.
   * Multer itself reports the limit only after reading the rest of the request, however long.
   */
  onFileTooLarge(): void;
}

/** A multer file that went through this engine. */
export type HashedFile = Express.Multer.File & HashedFileInfo;

export function isHashedFile(file: Express.Multer.File): file is HashedFile {
  return typeof (file as Partial<HashedFile>).fileHash === 'string';
}

/** Hashes each chunk on its way through and hands it on unchanged. */
async function* hashingTap(hasher: FileHasher, source: AsyncIterable<Buffer>) {
  for await (const chunk of source) {
    hasher.update(chunk);
    yield chunk;
  }
}

/**
 * A multer storage engine that hashes each file while it streams (`fileHash = sha256`, `hash =
 * doubleHash`, as a file certificate records them) and, to publish it, writes it at the same time
 * to the store under a temporary name (a file in its incoming directory, a multipart upload); no chunk is kept once hashed and written, so
 * memory stays flat whatever the size. Whatever fails (the size limit, the client going away, a
 * malformed body), what was written is removed before the failure is reported.
 */
export class HashingStorage implements StorageEngine {
  readonly #options: HashingStorageOptions;
  readonly #receiving = new Set<Promise<unknown>>();

  constructor(options: HashingStorageOptions) {
    this.#options = options;
  }

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    const receiving = this.#receive(file.stream, file.fieldname);
    this.#receiving.add(receiving);
    receiving.then(
      (info) => {
        this.#receiving.delete(receiving);
        // Multer merges what it is given into the file object it hands to the route.
        const merged: Partial<Express.Multer.File> = info;
        callback(null, merged);
      },
      (error: unknown) => {
        this.#receiving.delete(receiving);
        callback(error);
      },
    );
  }

  /** Multer calls this for a stored file when the request fails after it was received. */
  _removeFile(
    _req: Request,
    file: Express.Multer.File,
    callback: (error: Error | null) => void,
  ): void {
    const { incomingPath } = file as Partial<HashedFileInfo>;
    const store = this.#options.keepInStore;
    if (typeof incomingPath !== 'string' || store === null) {
      callback(null);
      return;
    }
    store.discardIncoming(incomingPath).then(
      () => {
        callback(null);
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  /** Resolves once no file is being received any more (each one stored or cleaned up). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#receiving]);
  }

  async #receive(stream: Readable, fieldname: string): Promise<HashedFileInfo> {
    const hasher = createFileHasher();
    const overLimit = new AbortController();
    // Registered after multer's own listener, which has already marked the upload as failed.
    stream.once('limit', () => {
      overLimit.abort(new multer.MulterError('LIMIT_FILE_SIZE', fieldname));
    });
    let incoming: IncomingObject | null = null;
    const store = this.#options.keepInStore;
    try {
      if (store === null) {
        await pipeline(
          stream,
          async (source: AsyncIterable<Buffer>) => {
            for await (const chunk of source) hasher.update(chunk);
          },
          { signal: overLimit.signal },
        );
      } else {
        incoming = await store.createIncoming();
        await pipeline(
          stream,
          (source: AsyncIterable<Buffer>) => hashingTap(hasher, source),
          incoming.stream,
          { signal: overLimit.signal },
        );
        await incoming.stored();
      }
    } catch (error) {
      if (incoming !== null) await incoming.abort();
      if (overLimit.signal.aborted) {
        this.#options.onFileTooLarge();
        throw overLimit.signal.reason;
      }
      throw error;
    }
    return { ...hasher.digest(), incomingPath: incoming?.ref ?? null };
  }
}
