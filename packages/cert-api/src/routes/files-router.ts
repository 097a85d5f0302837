import { pipeline } from 'node:stream/promises';
import { findPublishedFile } from '@trustpoint/db';
import { DomainError, hashHexSchema } from '@trustpoint/domain';
import { validate } from '@trustpoint/http';
import { Router } from 'express';
import parseRange from 'range-parser';
import { z } from 'zod';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { publishedFileStoreOf } from '../files/files-settings.js';
import type { ByteRange } from '../files/published-file-store.js';

const fileParamsSchema = z.object({ fileHash: hashHexSchema });

/** A year: the bytes at an address never change. */
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/**
 * The one range a `Range` header asks for, `'unsatisfiable'` (416), or undefined for the whole
 * file: no header, a malformed one, a unit other than bytes, an `If-Range` that names another
 * validator, or several ranges (answered whole rather than as multipart/byteranges; RFC 9110
 * lets a server ignore Range).
 */
function requestedRange(
  header: string | undefined,
  ifRange: string | undefined,
  etag: string,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  if (ifRange !== undefined && ifRange !== etag) return undefined;
  const parsed = parseRange(size, header, { combine: true });
  if (parsed === -1) return 'unsatisfiable';
  if (parsed === -2 || parsed.type !== 'bytes' || parsed.length !== 1) return undefined;
  const [range] = parsed;
  return range === undefined ? undefined : { start: range.start, end: range.end };
}

/**
 * `GET /files/{fileHash}`: published files, readable by anyone without a token, from whichever
 * store holds them (a local directory, an S3-compatible bucket), whole or one byte range.
 * Published files are whatever users uploaded, so they are never rendered on our origin: always
 * an attachment, no content sniffing, and a sandboxing CSP in case a browser opens them anyway.
 */
export function filesRouter(services: CertificateServices): Router {
  const router = Router();

  router.get('/files/:fileHash', async (req, res) => {
    const { fileHash } = validate(fileParamsSchema, req.params, 'path');
    const file = await findPublishedFile(services.knex, fileHash);
    if (!file) throw new DomainError('notFound', { detail: `no published file ${fileHash}` });
    const store = publishedFileStoreOf(services.files);
    // A row without its bytes is an operator's problem (a 500 that is logged), not a 404.
    const size = await store.size(file.storagePath);

    const etag = `"${file.fileHash}"`;
    res.set({
      'Cache-Control': IMMUTABLE_CACHE,
      ETag: etag,
      'Accept-Ranges': 'bytes',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': `attachment; filename="${file.fileHash}"`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
    });
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    const range = requestedRange(req.headers.range, req.get('if-range'), etag, size);
    if (range === 'unsatisfiable') {
      // HTTP's own answer (RFC 9110 15.5.17), outside the API's error catalogue: no body.
      res.setHeader('Content-Range', `bytes */${String(size)}`);
      res.status(416).end();
      return;
    }
    // setHeader, not res.set: Express would append a charset to the recorded media type.
    res.setHeader('Content-Type', file.mediaType);
    if (range === undefined) {
      res.setHeader('Content-Length', String(size));
      res.status(200);
    } else {
      res.setHeader('Content-Length', String(range.end - range.start + 1));
      res.setHeader(
        'Content-Range',
        `bytes ${String(range.start)}-${String(range.end)}/${String(size)}`,
      );
      res.status(206);
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await pipeline(await store.read(file.storagePath, range), res);
  });

  return router;
}
