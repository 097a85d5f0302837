import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { DomainError, duplicateMemberProblem } from '@trustpoint/domain';
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';

const RAW_JSON = Symbol('raw JSON body');

/**
 * The JSON body as its bytes came (after its Content-Encoding), for a route that must read the
 * text itself: a member named twice, which `JSON.parse` folds into one, is visible only there.
 */
export function rawJsonOf(req: Request): Buffer | undefined {
  return (req as unknown as { [RAW_JSON]?: Buffer })[RAW_JSON];
}

/** The first byte of `buffer` that is not JSON whitespace (RFC 8259: space, tab, LF, CR). */
function firstSignificantByte(buffer: Buffer): number | undefined {
  for (const byte of buffer) {
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  }
  return undefined;
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [

function isJson(buffer: Buffer): boolean {
  try {
    JSON.parse(buffer.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** 1 MiB: far above any JSON request of the spec; files travel as multipart, not JSON. */
export const DEFAULT_JSON_BODY_LIMIT = 1024 * 1024;

export interface JsonBodyOptions {
  /** Bytes, or a size such as `'100kb'`. */
  limit?: number | string;
}

/**
 * Parses JSON bodies up to `limit`. Malformed JSON and oversized bodies are passed on as errors,
 * which `errorHandler` answers with a 400 (field `body`) and a 413; a body naming a member twice
 * is a 400 naming it (`duplicateMemberProblem`), before any route reads it.
 */
export function jsonBody(options: JsonBodyOptions = {}): RequestHandler {
  const parse: RequestHandler = express.json({
    limit: options.limit ?? DEFAULT_JSON_BODY_LIMIT,
    // UTF-8 only (RFC 8259 §8.1: JSON between systems MUST be): another charset would be
    // decoded by the parser, while the raw bytes kept here are read as UTF-8.
    verify: (req: IncomingMessage, _res, buffer: Buffer, encoding: string) => {
      if (encoding.toLowerCase() !== 'utf-8' && encoding.toLowerCase() !== 'utf8') {
        throw Object.assign(new Error(`charset ${encoding} is not supported`), {
          type: 'charset.unsupported',
          status: 415,
        });
      }
      // Bytes that are not UTF-8 would be decoded with U+FFFD in their place: a name certified
      // as something the client never sent.
      if (!isUtf8(buffer)) {
        throw Object.assign(new Error('the body is not UTF-8'), {
          type: 'encoding.invalid',
          status: 400,
        });
      }
      // `null`, `"text"` or `12` are JSON, which the strict parser refuses as malformed: said as
      // what it is. A body starting with `{` or `[` (every request's) is not parsed twice.
      const first = firstSignificantByte(buffer);
      if (first !== undefined && first !== OPEN_OBJECT && first !== OPEN_ARRAY && isJson(buffer)) {
        throw Object.assign(new Error('the body is JSON but not an object'), {
          type: 'entity.not.object',
          status: 400,
        });
      }
      // Keeps a reference to the bytes body-parser read anyway: no copy.
      (req as unknown as { [RAW_JSON]?: Buffer })[RAW_JSON] = buffer;
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // A body an earlier parser (a route's own limit) read and checked is not scanned again.
    const earlier = rawJsonOf(req);
    parse(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      const raw = rawJsonOf(req);
      // About 2 us for a certificate's body: a scan of the text JSON.parse has just read.
      const twice =
        raw === undefined || raw === earlier
          ? undefined
          : duplicateMemberProblem(raw.toString('utf8'));
      if (twice === undefined) {
        next();
        return;
      }
      next(
        new DomainError('validation', {
          detail: `the JSON body names ${twice.field} twice`,
          errors: [twice],
        }),
      );
    });
  };
}
