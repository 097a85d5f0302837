import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every regular file under the files directory, as paths relative to it. */
async function storedFiles(api: CertApiFixture): Promise<string[]> {
  const entries = await readdir(api.files.dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(api.files.dir.length + 1))
    .sort();
}

async function publishedRows(api: CertApiFixture, fileHash: string) {
  return api.db.knex('published_files').where('file_hash', fileHash);
}

describe.each(testBackends())('published files on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const publish = (
    token: string,
    bytes: Buffer,
    options: { query?: string; filename?: string; contentType?: string } = {},
  ) =>
    request(api.app)
      .post(`/cert/v2/certificates?type=file&networkId=31337&${options.query ?? 'publish=true'}`)
      .set('Authorization', `Bearer ${token}`)
      .attach('fileInput', bytes, {
        filename: options.filename ?? 'report.pdf',
        contentType: options.contentType ?? 'application/pdf',
      })
      .field('body', JSON.stringify({ name: 'Published', description: '' }));

  it('when a file is published, then anyone gets it back byte for byte from /files without a token', async () => {
    // Arrange
    const { token } = await api.user();
    const bytes = randomBytes(300_000);
    const fileHash = sha256Hex(bytes);

    // Act
    const created = await publish(token, bytes);
    const fetched = await request(api.app)
      .get(`/cert/v2/files/${fileHash}`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          done(null, Buffer.concat(chunks));
        });
      });

    // Assert
    expect(created.status).toBe(201);
    expect(fetched.status).toBe(200);
    expect(Buffer.compare(fetched.body as Buffer, bytes)).toBe(0);
    expect(fetched.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': '300000',
      etag: `"${fileHash}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^attachment/),
    });
    expect(await storedFiles(api)).toContain(`${fileHash.slice(0, 2)}/${fileHash}`);
    expect(
      Buffer.compare(await readFile(join(api.files.dir, fileHash.slice(0, 2), fileHash)), bytes),
    ).toBe(0);
    expect(await publishedRows(api, fileHash)).toHaveLength(1);
  });

  it('when the client already holds the file, then If-None-Match gets 304', async () => {
    // Arrange
    const { token } = await api.user();
    const bytes = randomBytes(1_000);
    const fileHash = sha256Hex(bytes);
    expect((await publish(token, bytes)).status).toBe(201);

    // Act
    const response = await request(api.app)
      .get(`/cert/v2/files/${fileHash}`)
      .set('If-None-Match', `"${fileHash}"`);

    // Assert
    expect(response.status).toBe(304);
  });

  it('when an HTML file is published, then it is served as an attachment that browsers do not sniff or run', async () => {
    // Arrange
    const { token } = await api.user();
    const bytes = Buffer.from(
      `<script>alert(document.cookie)</script>${randomBytes(8).toString('hex')}`,
    );
    const fileHash = sha256Hex(bytes);
    expect(
      (await publish(token, bytes, { filename: 'x.html', contentType: 'text/html' })).status,
    ).toBe(201);

    // Act
    const response = await request(api.app).get(`/cert/v2/files/${fileHash}`);

    // Assert
    expect(response.headers['content-disposition']).toMatch(/^attachment/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain('sandbox');
  });

  it('when two users publish the same file, then both are certified and it is stored once', async () => {
    // Arrange
    const alice = await api.user();
    const bob = await api.user();
    const bytes = randomBytes(2_000);
    const fileHash = sha256Hex(bytes);

    // Act
    const first = await publish(alice.token, bytes);
    const second = await publish(bob.token, bytes, { contentType: 'text/plain' });

    // Assert
    expect([first.status, second.status]).toEqual([201, 201]);
    const rows = await publishedRows(api, fileHash);
    expect(rows).toHaveLength(1);
    expect(rows[0].media_type).toBe('application/pdf');
    expect((await storedFiles(api)).filter((path) => path.endsWith(fileHash))).toHaveLength(1);
    expect((await storedFiles(api)).filter((path) => path.startsWith('.incoming'))).toEqual([]);
  });

  it('when a publish request is refused, then no file and no row are left', async () => {
    // Arrange
    const broke = await api.user({ credits: 0 });
    const repeater = await api.user({ credits: 5 });
    const refusedBytes = randomBytes(3_000);
    const repeatedBytes = randomBytes(3_000);
    expect((await publish(repeater.token, repeatedBytes, { query: 'publish=false' })).status).toBe(
      201,
    );
    const before = await storedFiles(api);

    // Act
    const outOfCredits = await publish(broke.token, refusedBytes);
    const repeated = await publish(repeater.token, repeatedBytes);

    // Assert
    expect(outOfCredits.status).toBe(429);
    expect(repeated.status).toBe(409);
    expect(await publishedRows(api, sha256Hex(refusedBytes))).toEqual([]);
    expect(await publishedRows(api, sha256Hex(repeatedBytes))).toEqual([]);
    expect(await storedFiles(api)).toEqual(before);
    expect(await findCreditBalance(api.db.knex, repeater.id)).toBe(4);
  });

  it('when a file is certified without publish, then it is not stored and /files answers 404', async () => {
    // Arrange
    const { token } = await api.user();
    const bytes = randomBytes(500);
    const fileHash = sha256Hex(bytes);

    // Act
    const created = await publish(token, bytes, { query: 'publish=false' });
    const fetched = await request(api.app).get(`/cert/v2/files/${fileHash}`);

    // Assert
    expect(created.status).toBe(201);
    expect(fetched.status).toBe(404);
    expect(fetched.body).toEqual({
      statusCode: 404,
      type: 'Not Found Error',
      message: 'The requested resource was not found',
    });
    expect((await storedFiles(api)).some((path) => path.endsWith(fileHash))).toBe(false);
  });

  it('when the client goes away in the middle of a published upload, then nothing is left on disk', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 1 });
    const server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const before = await storedFiles(api);

    // Act: half a file, then the connection drops
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
    req.write('--b\r\nContent-Disposition: form-data; name="fileInput"; filename="a.bin"\r\n\r\n');
    req.write(randomBytes(512 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 300));
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));

    // Assert: the partial file is removed, however long a loaded machine takes to notice.
    await expect.poll(() => storedFiles(api)).toEqual(before);
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
  });

  it('when the hash is malformed, then 400 on the path', async () => {
    // Act
    const response = await request(api.app).get('/cert/v2/files/not-a-hash');

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'path.fileHash', error: expect.any(String) }]);
  });
});

describe('published files on the local directory: ranges', () => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi('pglite');
  });

  afterAll(async () => {
    await api.close();
  });

  it('when one byte range is asked for, then 206 with those bytes; several ranges get the whole file; beyond the end 416', async () => {
    // Arrange
    const { token } = await api.user();
    const bytes = randomBytes(5_000);
    const fileHash = sha256Hex(bytes);
    const created = await request(api.app)
      .post('/cert/v2/certificates?type=file&networkId=31337&publish=true')
      .set('Authorization', `Bearer ${token}`)
      .attach('fileInput', bytes, { filename: 'a.bin', contentType: 'application/octet-stream' })
      .field('body', JSON.stringify({ name: 'Ranged', description: '' }));
    expect(created.status).toBe(201);
    const get = (range: string) =>
      request(api.app)
        .get(`/cert/v2/files/${fileHash}`)
        .set('Range', range)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            done(null, Buffer.concat(chunks));
          });
        });

    // Act
    const first = await get('bytes=0-99');
    const several = await get('bytes=0-9,100-109');
    const beyond = await get('bytes=5000-');

    // Assert
    expect(first.status).toBe(206);
    expect(first.headers['content-range']).toBe('bytes 0-99/5000');
    expect(Buffer.compare(first.body as Buffer, bytes.subarray(0, 100))).toBe(0);
    expect(several.status).toBe(200);
    expect(Buffer.compare(several.body as Buffer, bytes)).toBe(0);
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */5000');
  });
});
