import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { findPublishedFile } from '@trustpoint/db';
import { DomainError, hashHexSchema } from '@trustpoint/domain';
import { validate } from '@trustpoint/http';
import { Router } from 'express';
import { z } from 'zod';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { absolutePathOf } from '../files/published-file-store.js';

const fileParamsSchema = z.object({ fileHash: hashHexSchema });

/** A year: the bytes at an address never change. */
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/**
 * `GET /files/{fileHash}`: published files, readable by anyone without a token. Published files
 * are whatever users uploaded, so they are never rendered on our origin: always an attachment,
 * no content sniffing, and a sandboxing CSP in case a browser opens them anyway.
 */
export function filesRouter(services: CertificateServices): Router {
  const router = Router();

  router.get('/files/:fileHash', async (req, res) => {
    const { fileHash } = validate(fileParamsSchema, req.params, 'path');
    const file = await findPublishedFile(services.knex, fileHash);
    if (!file) throw new DomainError('notFound', { detail: `no published file ${fileHash}` });
    const path = absolutePathOf(services.files.dir, file.storagePath);
    // A row without its bytes is an operator's problem (a 500 that is logged), not a 404.
    const { size } = await stat(path);

    const etag = `"${file.fileHash}"`;
    res.set({
      'Cache-Control': IMMUTABLE_CACHE,
      ETag: etag,
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': `attachment; filename="${file.fileHash}"`,
      'Content-Security-Policy': "default-src 'none'; sandbox",
    });
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    // setHeader, not res.set: Express would append a charset to the recorded media type.
    res.setHeader('Content-Type', file.mediaType);
    res.setHeader('Content-Length', String(size));
    if (req.method === 'HEAD') {
      res.status(200).end();
      return;
    }
    res.status(200);
    await pipeline(createReadStream(path), res);
  });

  return router;
}
