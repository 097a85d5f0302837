import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
// s3rver ships no types; it is only started and closed here.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore
import S3rver from 's3rver';
import type { Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ClientOf, s3FileStore, type S3FileStoreSettings } from '../src/files/s3-file-store.js';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface RunningS3rver {
  run(): Promise<unknown>;
  close(): Promise<void>;
}

/** Reads a binary answer's bytes (supertest parses only text by default). */
const binary = <T extends Test>(test: T) =>
  test.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      done(null, Buffer.concat(chunks));
    });
  });

describe.each(testBackends())(
  'published files in an S3-compatible bucket (s3rver), on %s',
  (backend) => {
    let server: RunningS3rver;
    let client: S3Client;
    let api: CertApiFixture;
    let endpoint: string;
    const bucket = 'trustpoint-files';
    const prefix = 'published/';

    beforeAll(async () => {
      const port = await freePort();
      server = new S3rver({
        address: '127.0.0.1',
        port,
        silent: true,
        directory: await mkdtemp(join(tmpdir(), 'trustpoint-s3rver-')),
      }) as RunningS3rver;
      await server.run();
      // s3rver's fixed development credentials, through the SDK as any operator would configure it.
      endpoint = `http://127.0.0.1:${String(port)}`;
      const settings: S3FileStoreSettings = {
        bucket,
        prefix,
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      };
      client = s3ClientOf(settings);
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      api = await startCertApi(backend, {
        filesStore: s3FileStore(settings, client),
        maxFileBytes: 64 * 1024 ** 2,
      });
    });

    afterAll(async () => {
      await api.close();
      client.destroy();
      await server.close();
    });

    async function keys(): Promise<string[]> {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
    }

    async function objectBytes(key: string): Promise<Buffer> {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    }

    const publish = (token: string, bytes: Buffer, query = 'publish=true') =>
      request(api.app)
        .post(`/cert/v2/certificates?type=file&networkId=31337&${query}`)
        .set('Authorization', `Bearer ${token}`)
        .attach('fileInput', bytes, { filename: 'report.pdf', contentType: 'application/pdf' })
        .field('body', JSON.stringify({ name: 'Published', description: '' }));

    it('when a file of several upload parts is published, then it is stored at its content address in the bucket and served back whole without a token', async () => {
      // Arrange: over two 8 MiB parts, so the upload is a real multipart upload.
      const { token } = await api.user();
      const bytes = randomBytes(17 * 1024 * 1024 + 123);
      const fileHash = sha256Hex(bytes);

      // Act
      const created = await publish(token, bytes);
      const fetched = await binary(request(api.app).get(`/cert/v2/files/${fileHash}`));

      // Assert
      expect(created.status).toBe(201);
      expect(fetched.status).toBe(200);
      expect(fetched.headers).toMatchObject({
        'content-type': 'application/pdf',
        'content-length': String(bytes.length),
        'accept-ranges': 'bytes',
        etag: `"${fileHash}"`,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'content-disposition': `attachment; filename="${fileHash}"`,
      });
      expect(Buffer.compare(fetched.body as Buffer, bytes)).toBe(0);
      const key = `${prefix}${fileHash.slice(0, 2)}/${fileHash}`;
      expect(await keys()).toContain(key);
      expect(Buffer.compare(await objectBytes(key), bytes)).toBe(0);
      expect((await keys()).filter((name) => name.includes('.incoming/'))).toEqual([]);
    }, 60_000);

    it('when a byte range is asked for, then 206 with exactly those bytes and Content-Range; a suffix range too; beyond the end 416', async () => {
      // Arrange
      const { token } = await api.user();
      const bytes = randomBytes(10_000);
      const fileHash = sha256Hex(bytes);
      expect((await publish(token, bytes)).status).toBe(201);
      const get = (range: string) =>
        binary(request(api.app).get(`/cert/v2/files/${fileHash}`).set('Range', range));

      // Act
      const middle = await get('bytes=100-1099');
      const suffix = await get('bytes=-500');
      const beyond = await get('bytes=20000-');

      // Assert
      expect(middle.status).toBe(206);
      expect(middle.headers['content-range']).toBe('bytes 100-1099/10000');
      expect(middle.headers['content-length']).toBe('1000');
      expect(Buffer.compare(middle.body as Buffer, bytes.subarray(100, 1100))).toBe(0);
      expect(suffix.status).toBe(206);
      expect(suffix.headers['content-range']).toBe('bytes 9500-9999/10000');
      expect(Buffer.compare(suffix.body as Buffer, bytes.subarray(9500))).toBe(0);
      expect(beyond.status).toBe(416);
      expect(beyond.headers['content-range']).toBe('bytes */10000');
    });

    it('when the certificate transaction is refused (no credits, a duplicate), then neither the published object nor the temporary upload is left in the bucket', async () => {
      // Arrange
      const broke = await api.user({ credits: 0 });
      const repeater = await api.user({ credits: 5 });
      const refusedBytes = randomBytes(3_000);
      const repeatedBytes = randomBytes(3_000);
      expect((await publish(repeater.token, repeatedBytes, 'publish=false')).status).toBe(201);
      const before = await keys();

      // Act
      const outOfCredits = await publish(broke.token, refusedBytes);
      const repeated = await publish(repeater.token, repeatedBytes);

      // Assert
      expect(outOfCredits.status).toBe(429);
      expect(repeated.status).toBe(409);
      expect(await keys()).toEqual(before);
      expect((await keys()).some((name) => name.includes(sha256Hex(refusedBytes)))).toBe(false);
      expect(
        await api.db.knex('published_files').where('file_hash', sha256Hex(refusedBytes)),
      ).toEqual([]);
    });

    it('when the chain cannot anchor in time, then the withdrawn certificate takes its published object with it', async () => {
      // Arrange: a network whose node does not answer, and a short wait.
      const down = await startCertApi(backend, {
        filesStore: s3FileStore(
          {
            bucket,
            prefix: 'down/',
            endpoint,
            forcePathStyle: true,
            credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          },
          client,
        ),
        rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
        anchorTimeoutMs: 1_500,
      });
      try {
        const { token } = await down.user();
        const bytes = randomBytes(4_000);

        // Act
        const response = await request(down.app)
          .post('/cert/v2/certificates?type=file&networkId=31337&publish=true')
          .set('Authorization', `Bearer ${token}`)
          .attach('fileInput', bytes, {
            filename: 'a.bin',
            contentType: 'application/octet-stream',
          })
          .field('body', JSON.stringify({ name: 'Withdrawn', description: '' }));

        // Assert
        expect(response.status).toBe(503);
        expect((await keys()).filter((name) => name.startsWith('down/'))).toEqual([]);
        expect(await down.db.knex('published_files').where('file_hash', sha256Hex(bytes))).toEqual(
          [],
        );
      } finally {
        await down.close();
      }
    }, 60_000);

    it('when the client goes away in the middle of a published multipart upload, then no object is left in the bucket and no credit is spent', async () => {
      // Arrange
      const { id, token } = await api.user({ credits: 1 });
      const server = api.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const before = await keys();

      // Act: more than one 8 MiB part, then the connection drops
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/cert/v2/certificates?type=file&networkId=31337&publish=true',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'multipart/form-data; boundary=b',
        },
      });
      req.on('error', () => undefined);
      req.write(
        '--b\r\nContent-Disposition: form-data; name="fileInput"; filename="a.bin"\r\n\r\n',
      );
      req.write(randomBytes(10 * 1024 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      req.destroy();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));

      // Assert: the multipart upload is aborted, however long a loaded machine takes to notice.
      await expect.poll(() => keys()).toEqual(before);
      expect(await findCreditBalance(api.db.knex, id)).toBe(1);
    });

    it('when a file is certified without publish, then nothing is written to the bucket', async () => {
      const { token } = await api.user();
      const before = await keys();
      const bytes = randomBytes(2_000);
      expect((await publish(token, bytes, 'publish=false')).status).toBe(201);
      expect(await keys()).toEqual(before);
      expect((await request(api.app).get(`/cert/v2/files/${sha256Hex(bytes)}`)).status).toBe(404);
    });
  },
);
