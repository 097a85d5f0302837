import {
  DomainError,
  duplicateMemberProblem,
  fieldErrorsFromZod,
  fileCertificateBodyPartSchema,
  textProblem,
  type FieldError,
  type FileCertificateBody,
  type FileHashes,
} from '@trustpoint/domain';
import { DEFAULT_JSON_BODY_LIMIT } from '@trustpoint/http';
import type { Request, Response } from 'express';
import multer from 'multer';
import { HashingStorage, isHashedFile, type HashedFile } from '../files/hashing-storage.js';
import type { PublishedFileStore } from '../files/published-file-store.js';

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
const MULTIPART_FORM_DATA = /^multipart\/form-data\s*;(.*;)?\s*boundary=/i;
/**
 * What busboy puts in place of bytes that are not UTF-8 when it decodes a part's text or a file
 * name: a name or field certified as something the client never sent. The text of a part is
 * given decoded, not as its bytes, so a text holding the character itself is refused as well.
 */
const REPLACEMENT_CHARACTER = '\uFFFD';
const NOT_UTF8 = 'Not valid UTF-8 (or holds U+FFFD, the replacement character)';

export interface ReceivedFile extends FileHashes {
  /** The part's file name (no path), or null when it had none. */
  name: string | null;
  /** The part's media type when well formed, else `application/octet-stream`. */
  mediaType: string;
}

export interface FileUpload {
  body: FileCertificateBody;
  file: ReceivedFile;
  /** Where the received bytes wait in the store, when the upload is to be published; else null. */
  incomingPath: string | null;
  /** Removes what is left on disk; safe to call more than once and after publishing. */
  discard(): Promise<void>;
}

export interface ReceiveFileUploadOptions {
  maxFileBytes: number;
  /** When set, the file is also written to this store (under a temporary name) while it is hashed. */
  keepInStore: PublishedFileStore | null;
}

function validationError(errors: FieldError[]): DomainError {
  return new DomainError('validation', { detail: 'invalid file upload', errors });
}

function mediaTypeOf(declared: string): string {
  const essence = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPE.test(essence) ? essence : 'application/octet-stream';
}

function receivedFile(file: HashedFile): ReceivedFile {
  // By code points, so a long name is never cut inside a surrogate pair.
  const name = Array.from(file.originalname).slice(0, FILE_NAME_MAX_LENGTH).join('');
  return {
    fileHash: file.fileHash,
    hash: file.hash,
    size: file.size,
    hashDomain: file.hashDomain,
    name: name === '' ? null : name,
    mediaType: mediaTypeOf(file.mimetype),
  };
}

/**
 * What a failed upload answers. A limit of multer stops the parsing, so its problem is reported
 * with those found in the parts before it.
 */
function uploadFailure(error: unknown, problems: FieldError[], clientGone: boolean): Error {
  if (error instanceof DomainError) return error;
  if (error instanceof multer.MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return new DomainError('payloadTooLarge', { detail: 'file over its limit' });
      case 'LIMIT_FIELD_VALUE':
        if (error.field === BODY_PART) {
          return new DomainError('payloadTooLarge', { detail: 'body part over its limit' });
        }
        return validationError([
          ...problems,
          { field: error.field ?? 'multipart', error: `Unexpected part; send one ${BODY_PART}` },
        ]);
      case 'LIMIT_FILE_COUNT':
        return validationError([
          ...problems,
          { field: FILE_PART, error: 'Only one file part is accepted' },
        ]);
      case 'LIMIT_FIELD_COUNT':
        // A second text part, whatever its name (multer does not say which).
        return validationError([
          ...problems,
          { field: BODY_PART, error: `Send one ${BODY_PART} part and no other text part` },
        ]);
      case 'LIMIT_PART_COUNT':
        return validationError([
          ...problems,
          { field: 'multipart', error: 'Too many parts; send fileInput and body only' },
        ]);
      default:
        // Part names: too long, missing, or not usable as a form field name.
        return validationError([...problems, { field: 'multipart', error: error.message }]);
    }
  }
  if (clientGone) {
    // Nobody is left to answer, so this is a caller's doing (logged at debug), not a server error.
    return new DomainError('validation', { detail: 'the client closed the upload early' });
  }
  return validationError([
    {
      field: 'multipart',
      error: `Malformed multipart body: ${error instanceof Error ? error.message : 'unreadable'}`,
    },
  ]);
}

/**
 * Reads a multipart file upload in one pass with multer: the file goes through a storage engine
 * that hashes it while it streams (and, to publish it, writes it to a temporary file in the store),
 * so memory stays flat whatever its size. Parts may come in either order. Problems with the parts
 * are collected into one 400; a file over the limit is a 413 as soon as the limit is crossed. On
 * any failure nothing is left on disk; the rest of the request is read and dropped, or discarded
 * when the connection closes after the answer, so the caller still gets the answer.
 */
export async function receiveFileUpload(
  req: Request,
  res: Response,
  options: ReceiveFileUploadOptions,
): Promise<FileUpload> {
  const declaredLength = Number(req.headers['content-length']);
  if (declaredLength > options.maxFileBytes + BODY_PART_MAX_BYTES + MULTIPART_OVERHEAD_BYTES) {
    throw new DomainError('payloadTooLarge', { detail: 'declared length' });
  }
  // The parts are read as they come: compressed, their bytes would be certified, not the file's.
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') {
    throw validationError([
      {
        field: 'Content-Encoding',
        error: 'Not supported on a multipart upload: send the parts uncompressed',
      },
    ]);
  }
  if (!MULTIPART_FORM_DATA.test(req.headers['content-type'] ?? '')) {
    throw validationError([
      {
        field: 'Content-Type',
        error: `Expected multipart/form-data with the parts ${FILE_PART} and ${BODY_PART}`,
      },
    ]);
  }

  const problems: FieldError[] = [];
  let clientGone = false;
  req.once('close', () => {
    if (!req.complete) clientGone = true;
  });
  let fileTooLarge = (): void => undefined;
  const storage = new HashingStorage({
    keepInStore: options.keepInStore,
    onFileTooLarge: () => {
      fileTooLarge();
    },
  });
  const parseMultipart = multer({
    storage,
    limits: {
      files: 1,
      fields: 1,
      parts: 2,
      fileSize: options.maxFileBytes,
      fieldSize: BODY_PART_MAX_BYTES,
      fieldNameSize: 100,
      headerPairs: 20,
    },
    defParamCharset: 'utf8',
    // multer passes it to busboy; missing from @types/multer 2.3.
    fileHwm: FILE_CHUNK_BYTES,
    fileFilter: (_req, file, accept) => {
      if (file.fieldname !== FILE_PART) {
        problems.push({
          field: file.fieldname,
          error: `Unexpected file part; send one ${FILE_PART}`,
        });
        accept(null, false);
        return;
      }
      // The name is stored with the certificate: refused, like any caller's text, when it cannot be.
      const nameProblem = file.originalname.includes(REPLACEMENT_CHARACTER)
        ? NOT_UTF8
        : textProblem(file.originalname);
      if (nameProblem !== undefined) {
        problems.push({ field: FILE_PART, error: `File name: ${nameProblem}` });
      }
      accept(null, true);
    },
  } as multer.Options & { fileHwm: number }).any();

  try {
    await new Promise<void>((resolve, reject) => {
      fileTooLarge = () => {
        reject(new DomainError('payloadTooLarge', { detail: `file over ${options.maxFileBytes}` }));
      };
      void parseMultipart(req, res, (error?: unknown) => {
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error('multipart parsing failed'));
      });
    });
  } catch (error) {
    // Multer reports a client that went away without waiting for the file being written.
    await storage.idle();
    throw uploadFailure(error, problems, clientGone);
  }

  // At most one: the file filter takes only fileInput, and the limits only one file.
  const stored = Array.isArray(req.files) ? req.files.find(isHashedFile) : undefined;
  const incomingPath = stored?.incomingPath ?? null;
  const discard = async (): Promise<void> => {
    if (incomingPath !== null && options.keepInStore !== null) {
      await options.keepInStore.discardIncoming(incomingPath);
    }
  };
  let bodyText: string | undefined;
  const fields = (req.body ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (name === BODY_PART && typeof value === 'string') {
      bodyText = value;
    } else if (name === FILE_PART) {
      problems.push({ field: FILE_PART, error: 'Expected a file part (with a filename)' });
    } else {
      problems.push({ field: name, error: `Unexpected part; send one ${BODY_PART}` });
    }
  }
  if (stored === undefined || stored.size === 0) {
    problems.push({ field: FILE_PART, error: 'Required: a non-empty file' });
  }
  let body: FileCertificateBody | undefined;
  if (bodyText === undefined) {
    problems.push({ field: BODY_PART, error: 'Required' });
  } else if (bodyText.includes(REPLACEMENT_CHARACTER)) {
    problems.push({ field: BODY_PART, error: NOT_UTF8 });
  } else {
    const parsed = fileCertificateBodyPartSchema.safeParse(bodyText);
    // As every JSON body: a member named twice is refused, not read as its last value.
    const twice = parsed.success ? duplicateMemberProblem(bodyText) : undefined;
    if (!parsed.success) problems.push(...fieldErrorsFromZod(parsed.error, BODY_PART));
    else if (twice !== undefined) problems.push(twice);
    else body = parsed.data;
  }
  if (problems.length > 0 || stored === undefined || body === undefined) {
    await discard();
    throw validationError(problems);
  }
  return { body, file: receivedFile(stored), incomingPath, discard };
}
