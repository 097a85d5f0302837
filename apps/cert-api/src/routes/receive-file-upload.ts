import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  createFileHasher,
  DomainError,
  fieldErrorsFromZod,
  fileCertificateBodyPartSchema,
  textProblem,
  type FieldError,
  type FileCertificateBody,
  type FileHashes,
} from '@trustpoint/domain';
import { DEFAULT_JSON_BODY_LIMIT } from '@trustpoint/http';
import busboy from 'busboy';
import {
  createIncomingFile,
  discardIncomingFile,
  type IncomingFile,
} from '../files/published-file-store.js';

/** The parts of POST /certificates?type=file (spec 4.1). */
export const FILE_PART = 'fileInput';
export const BODY_PART = 'body';

/** The `body` part is JSON like any other creation body, so it gets the same limit. */
export const BODY_PART_MAX_BYTES = DEFAULT_JSON_BODY_LIMIT;
/** Room for boundaries and part headers when judging a request by its Content-Length alone. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** Larger reads than the 64 KiB default: fewer hash and write calls on large files. */
const FILE_CHUNK_BYTES = 1024 * 1024;
const FILE_NAME_MAX_LENGTH = 255;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

export interface ReceivedFile extends FileHashes {
  /** The part's file name (no path), or null when it had none. */
  name: string | null;
  /** The part's media type when well formed, else `application/octet-stream`. */
  mediaType: string;
}

export interface FileUpload {
  body: FileCertificateBody;
  file: ReceivedFile;
  /** The received bytes on disk, when the upload is to be published; else null. */
  incoming: IncomingFile | null;
  /** Removes what is left on disk; safe to call more than once and after publishing. */
  discard(): Promise<void>;
}

export interface ReceiveFileUploadOptions {
  maxFileBytes: number;
  /** When set, the file is also written under this store directory while it is hashed. */
  keepInStore: string | null;
}

function validationError(errors: FieldError[]): DomainError {
  return new DomainError('validation', { detail: 'invalid file upload', errors });
}

function mediaTypeOf(declared: string): string {
  const essence = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPE.test(essence) ? essence : 'application/octet-stream';
}

/** Feeds each chunk to the hasher on its way through, keeping nothing. */
function hashingTap(hasher: ReturnType<typeof createFileHasher>): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hasher.update(chunk);
      done(null, chunk);
    },
  });
}

/**
 * Reads a multipart file upload in one pass with busboy: the file is hashed while it streams (and,
 * to publish it, written to a temporary file in the store), so memory stays flat whatever its
 * size. Parts may come in either order. Problems with the parts are collected into one 400; a file
 * over the limit is a 413 as soon as the limit is crossed. On any failure nothing is left on disk
 * and the rest of the request is drained (Node discards it), so the caller still gets the answer.
 */
export function receiveFileUpload(
  req: IncomingMessage,
  options: ReceiveFileUploadOptions,
): Promise<FileUpload> {
  const declaredLength = Number(req.headers['content-length']);
  if (declaredLength > options.maxFileBytes + BODY_PART_MAX_BYTES + MULTIPART_OVERHEAD_BYTES) {
    return Promise.reject(new DomainError('payloadTooLarge', { detail: 'declared length' }));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      fileHwm: FILE_CHUNK_BYTES,
      defParamCharset: 'utf8',
      limits: {
        files: 1,
        fields: 1,
        // busboy reports a part limit when it is reached, not exceeded: 3 means "more than 2".
        parts: 3,
        fileSize: options.maxFileBytes,
        fieldSize: BODY_PART_MAX_BYTES,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    // busboy refuses anything but multipart/form-data with a boundary.
    return Promise.reject(
      validationError([
        {
          field: 'Content-Type',
          error: `Expected multipart/form-data with the parts ${FILE_PART} and ${BODY_PART}`,
        },
      ]),
    );
  }

  return new Promise<FileUpload>((resolve, reject) => {
    const problems: FieldError[] = [];
    let bodyText: string | undefined;
    let received: Promise<ReceivedFile> | undefined;
    let incoming: IncomingFile | null = null;
    let settled = false;
    let fileStream: Readable | undefined;
    const pending: Promise<unknown>[] = [];

    const cleanUp = async (): Promise<void> => {
      if (incoming) await discardIncomingFile(incoming);
    };

    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      parser.removeAllListeners();
      // The parser is left unfed rather than destroyed (busboy cannot be destroyed from inside
      // its own callbacks); a late error from it has nobody to report to.
      parser.on('error', () => undefined);
      setImmediate(() => {
        // Ends the file's pipeline (and its writer) even though busboy will not end the stream.
        fileStream?.destroy();
        // Wait for the file's writer to stop before removing what it wrote.
        void Promise.allSettled(pending)
          .then(cleanUp)
          .finally(() => {
            reject(error instanceof Error ? error : new Error(String(error)));
          });
      });
    };

    parser.on('file', (name, stream, info) => {
      if (name !== FILE_PART || received !== undefined) {
        problems.push({ field: name, error: `Unexpected file part; send one ${FILE_PART}` });
        stream.resume();
        return;
      }
      stream.once('limit', () => {
        fail(new DomainError('payloadTooLarge', { detail: `file over ${options.maxFileBytes}` }));
      });
      // The name is stored with the certificate: refused, like any caller's text, when it cannot be.
      const nameProblem = textProblem(info.filename ?? '');
      if (nameProblem !== undefined) {
        problems.push({ field: FILE_PART, error: `File name: ${nameProblem}` });
      }
      fileStream = stream;
      received = receiveFile(stream, info);
      pending.push(received);
      received.catch(fail);
    });

    const receiveFile = async (stream: Readable, info: busboy.FileInfo): Promise<ReceivedFile> => {
      const hasher = createFileHasher();
      if (options.keepInStore === null) {
        // Each chunk is hashed and dropped: nothing is collected.
        for await (const chunk of stream) hasher.update(chunk as Buffer);
      } else {
        incoming = await createIncomingFile(options.keepInStore);
        await pipeline(stream, hashingTap(hasher), incoming.stream);
      }
      // By code points, so a long name is never cut inside a surrogate pair.
      const name = Array.from(info.filename ?? '')
        .slice(0, FILE_NAME_MAX_LENGTH)
        .join('');
      return {
        ...hasher.digest(),
        name: name === '' ? null : name,
        mediaType: mediaTypeOf(info.mimeType),
      };
    };

    parser.on('field', (name, value, info) => {
      if (name === FILE_PART) {
        problems.push({ field: FILE_PART, error: 'Expected a file part (with a filename)' });
      } else if (name !== BODY_PART || bodyText !== undefined) {
        problems.push({ field: name, error: `Unexpected part; send one ${BODY_PART}` });
      } else if (info.valueTruncated) {
        fail(new DomainError('payloadTooLarge', { detail: 'body part over its limit' }));
      } else {
        bodyText = value;
      }
    });
    parser.on('filesLimit', () => {
      problems.push({ field: FILE_PART, error: 'Only one file part is accepted' });
    });
    parser.on('fieldsLimit', () => {
      problems.push({ field: BODY_PART, error: 'Only one body part is accepted' });
    });
    parser.on('partsLimit', () => {
      problems.push({ field: 'multipart', error: 'Too many parts; send fileInput and body only' });
    });
    parser.on('error', (error) => {
      fail(
        validationError([
          {
            field: 'multipart',
            error: `Malformed multipart body: ${error instanceof Error ? error.message : 'unreadable'}`,
          },
        ]),
      );
    });
    req.once('close', () => {
      // The client went away mid-upload: stop and clean up. Nobody is left to answer, so this
      // is a caller's doing (logged at debug), not a server error.
      if (!req.complete) {
        fail(new DomainError('validation', { detail: 'the client closed the upload early' }));
      }
    });

    parser.on('close', () => {
      void (async () => {
        const file = await received;
        if (settled) return;
        if (file === undefined || file.size === 0) {
          problems.push({ field: FILE_PART, error: 'Required: a non-empty file' });
        }
        let body: FileCertificateBody | undefined;
        if (bodyText === undefined) {
          problems.push({ field: BODY_PART, error: 'Required' });
        } else {
          const parsed = fileCertificateBodyPartSchema.safeParse(bodyText);
          if (parsed.success) body = parsed.data;
          else problems.push(...fieldErrorsFromZod(parsed.error, BODY_PART));
        }
        if (problems.length > 0 || file === undefined || body === undefined) {
          fail(validationError(problems));
          return;
        }
        settled = true;
        const kept = incoming;
        resolve({
          body,
          file,
          incoming: kept,
          discard: async () => {
            if (kept) await discardIncomingFile(kept);
          },
        });
      })().catch(fail);
    });

    req.pipe(parser);
  });
}
