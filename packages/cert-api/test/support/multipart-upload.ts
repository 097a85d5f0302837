import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkServedResponse } from '@trustpoint/test-kit/openapi';
import type { Express } from 'express';
import { CERT_API_BASE_PATH } from '../../src/server.js';

/** One part of a hand-built multipart body; a file part has a filename. */
export interface UploadPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | (() => Iterable<Buffer> | AsyncIterable<Buffer>);
}

export interface UploadResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, read like supertest's body
  body: any;
}

/**
 * Sends `POST /cert/v2/certificates?<query>` as multipart/form-data over a real socket, streaming
 * each part with backpressure: unlike supertest, no part is ever held in memory whole, so a large
 * generated file measures the server, not the client. The answer is checked against the document
 * the app serves, as `request` checks its answers.
 */
export async function uploadMultipart(
  app: Express,
  options: { token?: string; query: string; parts: UploadPart[] },
): Promise<UploadResponse> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const boundary = `----trustpoint${randomBytes(8).toString('hex')}`;
  const path = `${CERT_API_BASE_PATH}/certificates?${options.query}`;
  try {
    const response = await new Promise<UploadResponse & { text: string }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: {
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
        },
      });
      const state = { answered: false };
      req.on('response', (res) => {
        state.answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: text === '' ? undefined : JSON.parse(text),
          });
        });
        res.on('error', reject);
      });
      // The server may answer (413) and close before the whole body is written.
      req.on('error', (error) => {
        if (!state.answered) reject(error);
      });
      const write = (chunk: Buffer | string) =>
        new Promise<void>((done) => {
          if (req.write(chunk) || req.destroyed) done();
          else req.once('drain', done);
        });
      void (async () => {
        for (const part of options.parts) {
          const disposition = `form-data; name="${part.name}"${
            part.filename === undefined ? '' : `; filename="${part.filename}"`
          }`;
          await write(
            `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
              (part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`) +
              '\r\n',
          );
          if (Buffer.isBuffer(part.data)) await write(part.data);
          else
            for await (const chunk of part.data()) {
              if (req.destroyed || state.answered) break;
              await write(chunk);
            }
          await write('\r\n');
        }
        req.end(`--${boundary}--\r\n`);
      })().catch(reject);
    });
    await checkServedResponse(app, CERT_API_BASE_PATH, {
      method: 'POST',
      url: path,
      status: response.status,
      contentType: response.headers['content-type'],
      body: response.text,
    });
    return { status: response.status, headers: response.headers, body: response.body };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** `count` chunks of `chunk`, made as they are read. */
export function repeatedChunks(chunk: Buffer, count: number): () => Iterable<Buffer> {
  return function* generate() {
    for (let i = 0; i < count; i += 1) yield chunk;
  };
}
