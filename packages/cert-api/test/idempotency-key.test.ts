import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { findCreditBalance, grantCredits } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates';
const CONTENT = 'type=content&networkId=31337';

describe.each(testBackends())('Idempotency-Key on the certificate API on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const certify = (token: string, key: string | undefined, body: object, query = CONTENT) => {
    const call = request(api.app)
      .post(`${CREATE}?${query}`)
      .set('Authorization', `Bearer ${token}`)
      .send(body);
    return key === undefined ? call : call.set('Idempotency-Key', key);
  };
  const credits = async (userId: string) => findCreditBalance(api.db.knex, userId);
  const certificatesOf = async (userId: string) =>
    Number(
      (
        await api.db
          .knex('certificates')
          .where({ user_id: userId })
          .count<{ count: string | number }[]>('* as count')
      )[0]?.count,
    );

  it('when a creation is retried with the same key and body, then the first answer comes back and no second credit is spent', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 5 });
    const key = randomUUID();
    const body = { name: 'Invoice', description: '', content: { n: randomUUID() } };
    const first = await certify(token, key, body);

    // Act: the same body, serialized with its members in another order
    const retry = await certify(token, key, {
      content: body.content,
      description: '',
      name: 'Invoice',
    });

    // Assert
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await credits(id)).toBe(4);
    expect(await certificatesOf(id)).toBe(1);
  });

  it('when the same key comes with another body, then 422 in the error body and nothing is made', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 5 });
    const key = randomUUID();
    await certify(token, key, { name: 'A', description: '', content: { n: randomUUID() } });

    // Act
    const other = await certify(token, key, { name: 'B', description: '', content: { n: 1 } });

    // Assert
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      statusCode: 422,
      type: 'Unprocessable Content Error',
      message:
        'This Idempotency-Key was used for a different request, please use a new key for this one',
    });
    expect(await certificatesOf(id)).toBe(1);
  });

  it('when another caller sends the same key, then it is their own key and makes their own certificate', async () => {
    // Arrange
    const [alice, bob] = [await api.user(), await api.user()];
    const key = randomUUID();
    const body = { name: 'Shared key', description: '', content: { n: randomUUID() } };
    const forAlice = await certify(alice.token, key, body);

    // Act: same key, another body even: keys are per caller
    const forBob = await certify(bob.token, key, { ...body, content: { n: randomUUID() } });

    // Assert
    expect(forAlice.status).toBe(201);
    expect(forBob.status).toBe(201);
    expect(forBob.body.data.certID).not.toBe(forAlice.body.data.certID);
  });

  it('when 10 identical requests with one key arrive at once, then one certificate is made and the others get it or 409 with Retry-After', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 20 });
    const key = randomUUID();
    const body = { name: 'Burst', description: '', content: { n: randomUUID() } };

    // Act
    const answers = await Promise.all(Array.from({ length: 10 }, () => certify(token, key, body)));

    // Assert
    const created = answers.filter((answer) => answer.status === 201);
    const busy = answers.filter((answer) => answer.status === 409);
    expect(created.length + busy.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.data.certID as string)).size).toBe(1);
    for (const answer of busy) {
      expect(answer.body.type).toBe('Conflict Error');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(await certificatesOf(id)).toBe(1);
    expect(await credits(id)).toBe(19);
    // Once the first has answered, every retry gets its answer.
    const later = await certify(token, key, body);
    expect(later.body).toEqual(created[0]?.body);
  });

  it('when the first request was refused (429, no credit), then a retry with the key after credits came creates the certificate, once', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 0 });
    const key = randomUUID();
    const body = { name: 'Broke', description: '', content: { n: randomUUID() } };
    const first = await certify(token, key, body);
    await grantCredits(api.db.knex, id, 3);

    // Act
    const retry = await certify(token, key, body);
    const again = await certify(token, key, body);

    // Assert
    expect(first.status).toBe(429);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
    expect(await credits(id)).toBe(2);
  });

  it('when a file upload is retried with the same key (another multipart boundary), then it is replayed; with other bytes, 422', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 5 });
    const key = randomUUID();
    const bytes = randomBytes(2048);
    const upload = (file: Buffer) =>
      request(api.app)
        .post(`${CREATE}?type=file&networkId=31337`)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', key)
        .field('body', JSON.stringify({ name: 'Deed', description: '' }))
        .attach('fileInput', file, { filename: 'deed.bin', contentType: 'application/pdf' });
    const first = await upload(bytes);

    // Act
    const retry = await upload(bytes);
    const otherBytes = await upload(randomBytes(2048));

    // Assert
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(otherBytes.status).toBe(422);
    expect(await credits(id)).toBe(4);
  });

  it('when a signature is retried with the same key, then the first 201 comes back, not 200', async () => {
    // Arrange
    const { token } = await api.user({ credits: 5, qualified: true });
    const { certID } = await api.certify(token);
    const sign = () =>
      request(api.app)
        .post(`${CREATE}/certID/${encodeURIComponent(certID)}/signature?networkId=31337`)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', 'sign-once');

    // Act
    const first = await sign();
    const retry = await sign();

    // Assert
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
  });

  it('when a key is empty, over 255 characters or not printable, then 400 in the error body, never 500', async () => {
    // Arrange
    const { token } = await api.user();
    const body = { name: 'Bad key', description: '', content: { n: randomUUID() } };

    // Act
    const empty = await certify(token, '', body);
    const long = await certify(token, 'k'.repeat(256), body);
    const longest = await certify(token, 'k'.repeat(255), body);
    const raw = await rawPost(api, token, Buffer.from('Idempotency-Key: caf\xe9\r\n', 'latin1'));

    // Assert
    for (const refused of [empty, long]) {
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        statusCode: 400,
        type: 'Validation Error',
        errors: [{ field: 'header.Idempotency-Key' }],
      });
    }
    expect(longest.status).toBe(201);
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
  });
});

/** A POST sent over a raw socket, for header bytes Node's HTTP client refuses to send. */
async function rawPost(api: CertApiFixture, token: string, extraHeaders: Buffer): Promise<string> {
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const body = JSON.stringify({ name: 'Raw', description: '', content: { n: randomUUID() } });
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(
      Buffer.concat([
        Buffer.from(
          `POST ${CREATE}?${CONTENT} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
            `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${String(Buffer.byteLength(body))}\r\n`,
        ),
        extraHeaders,
        Buffer.from(`\r\n${body}`),
      ]),
    );
    await new Promise((resolve) => socket.once('close', resolve));
    return Buffer.concat(chunks).toString('latin1');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
