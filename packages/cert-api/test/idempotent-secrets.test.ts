import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { SEALED_ANSWER_PREFIX } from '@trustpoint/http';
import { testBackends } from '@trustpoint/test-database';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const API_KEYS = '/cert/v2/api-keys';
const ENDPOINTS = '/cert/v2/webhooks/endpoints';

describe.each(testBackends())(
  'secrets in the answers kept for Idempotency-Keys on %s',
  (backend) => {
    let api: CertApiFixture;
    const logs: string[] = [];

    beforeAll(async () => {
      // Every line the app and the engine log, down to debug.
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString('utf8'));
          done();
        },
      });
      api = await startCertApi(backend, { logger: pino({ level: 'debug' }, sink) });
    });

    afterAll(async () => {
      await api.close();
    });

    /** Every column of the caller's kept keys, as the database returns them, as one text. */
    const keptRows = async (userId: string): Promise<string> => {
      const result = await api.db.knex.raw<{ rows: { row: unknown }[] }>(
        'select row_to_json(k)::text as row from idempotency_keys k where user_id = ?',
        [userId],
      );
      return result.rows.map((row) => String(row.row)).join('\n');
    };

    it('when an API key is created with a key, then its secret is kept only sealed, a retry gets it again, and no log shows it', async () => {
      // Arrange
      const { id, token } = await api.user();
      const key = randomUUID();
      const create = () =>
        request(api.app)
          .post(API_KEYS)
          .set('Authorization', `Bearer ${token}`)
          .set('Idempotency-Key', key)
          .send({ name: 'ERP' });

      // Act
      const first = await create();
      const retry = await create();

      // Assert
      expect(first.status).toBe(201);
      const secret = first.body.data.key as string;
      expect(secret.length).toBeGreaterThan(20);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      const rows = await keptRows(id);
      expect(rows).toContain(key);
      expect(rows).toContain(SEALED_ANSWER_PREFIX);
      expect(rows).not.toContain(secret);
      // Nor the part after the key's visible prefix, whatever form it is written in.
      expect(rows).not.toContain(secret.slice(-16));
      expect(logs.join('')).not.toContain(secret.slice(-16));
    });

    it('when a webhook endpoint is created with a key, then its signing secret is kept only sealed, a retry gets it again, and no log shows it', async () => {
      // Arrange
      const { id, token } = await api.user();
      const key = randomUUID();
      const create = () =>
        request(api.app)
          .post(ENDPOINTS)
          .set('Authorization', `Bearer ${token}`)
          .set('Idempotency-Key', key)
          .send({ url: 'http://127.0.0.1:9/hooks' });

      // Act
      const first = await create();
      const retry = await create();

      // Assert
      expect(first.status).toBe(201);
      const secret = first.body.data.secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect(retry.status).toBe(201);
      expect(retry.body.data.secret).toBe(secret);
      const rows = await keptRows(id);
      expect(rows).toContain(SEALED_ANSWER_PREFIX);
      expect(rows).not.toContain(secret.slice('whsec_'.length));
      expect(logs.join('')).not.toContain(secret.slice('whsec_'.length));
    });

    it('when a refusal is kept (400), then it is sealed too and replayed as it was sent', async () => {
      // Arrange
      const { id, token } = await api.user();
      const key = randomUUID();
      const create = () =>
        request(api.app)
          .post(API_KEYS)
          .set('Authorization', `Bearer ${token}`)
          .set('Idempotency-Key', key)
          .send({ name: 'Past', expiresAt: '2001-01-01T00:00:00Z' });

      // Act
      const first = await create();
      const retry = await create();

      // Assert
      expect(first.status).toBe(400);
      expect(retry.status).toBe(400);
      expect(retry.body).toEqual(first.body);
      expect(await keptRows(id)).toContain(SEALED_ANSWER_PREFIX);
    });

    it("when another credential of the user sends the same key and body, then it gets 422, never the first answer's secret", async () => {
      // Arrange: the user's own token makes a key with every scope under an Idempotency-Key; a
      // key of theirs holding only read and keys (or only webhooks) knows that key and body.
      const { token } = await api.user();
      const narrow = await request(api.app)
        .post(API_KEYS)
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Reader', scopes: ['read', 'keys'] });
      const hooks = await request(api.app)
        .post(API_KEYS)
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'Hooks', scopes: ['webhooks'] });
      expect([narrow.status, hooks.status]).toEqual([201, 201]);
      const keyKey = randomUUID();
      const endpointKey = randomUUID();
      const wide = await request(api.app)
        .post(API_KEYS)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', keyKey)
        .send({ name: 'Everything' });
      const endpoint = await request(api.app)
        .post(ENDPOINTS)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', endpointKey)
        .send({ url: 'http://127.0.0.1:9/hooks' });
      expect([wide.status, endpoint.status]).toEqual([201, 201]);

      // Act
      const keyReplay = await request(api.app)
        .post(API_KEYS)
        .set('Authorization', `Bearer ${narrow.body.data.key as string}`)
        .set('Idempotency-Key', keyKey)
        .send({ name: 'Everything' });
      const endpointReplay = await request(api.app)
        .post(ENDPOINTS)
        .set('Authorization', `Bearer ${hooks.body.data.key as string}`)
        .set('Idempotency-Key', endpointKey)
        .send({ url: 'http://127.0.0.1:9/hooks' });

      // Assert
      expect(keyReplay.status).toBe(422);
      expect(keyReplay.headers['idempotent-replayed']).toBeUndefined();
      expect(JSON.stringify(keyReplay.body)).not.toContain(wide.body.data.key as string);
      expect(endpointReplay.status).toBe(422);
      expect(JSON.stringify(endpointReplay.body)).not.toContain(
        endpoint.body.data.secret as string,
      );
    });
  },
);
