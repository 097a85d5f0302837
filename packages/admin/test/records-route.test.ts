import { randomBytes } from 'node:crypto';
import { testBackends } from '@trustpoint/test-database';
import { checkedRequest } from '@trustpoint/test-kit/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_API_BASE_PATH } from '../src/index.js';
import { startAdminApi, type AdminFixture } from './support/admin-fixture.js';

const request = checkedRequest(ADMIN_API_BASE_PATH);
const at = (path: string) => `${ADMIN_API_BASE_PATH}${path}`;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

interface RecordView {
  id: number;
  networkId: string;
  kind: string;
  recordKey: string;
  hash: string;
  trustPointType: number | null;
  status: string;
  contract: string | null;
  transactionHash: string | null;
  blockNumber: number | null;
  createdAt: string;
  anchoredAt: string | null;
}
interface Page {
  records: RecordView[];
  next: number | null;
}

describe.each(testBackends())('admin API: GET /records on %s', (backend) => {
  let api: AdminFixture;
  let admin: Awaited<ReturnType<AdminFixture['givenUser']>>;
  const transactionHash = `0x${hex(32)}`;
  /** Ids of the records inserted below, in insertion order. */
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    api = await startAdminApi(backend);
    admin = await api.givenUser({ role: 'admin' });
    const knex = api.db.knex;
    const [batch] = await knex('anchor_batches')
      .insert({
        network_id: '31337',
        kind: 'trustpoint',
        signer: `0x${'a'.repeat(40)}`,
        nonce: 0,
        raw_transaction: '0x00',
        transaction_hash: transactionHash,
        status: 'anchored',
        block_number: 42,
      })
      .returning<{ id: number }[]>('id');
    const insert = async (
      name: string,
      row: { network_id: string; kind: string; status: string; created_at?: Date },
    ) => {
      const [made] = await knex('anchor_records')
        .insert({
          record_key: `0x${hex(32)}`,
          hash: hex(32),
          trustpoint_type: row.kind === 'trustpoint' ? 1 : null,
          batch_id: row.status === 'queued' ? null : batch?.id,
          ...row,
        })
        .returning<{ id: number }[]>('id');
      ids[name] = Number(made?.id);
    };
    await insert('anchored', {
      network_id: '31337',
      kind: 'trustpoint',
      status: 'anchored',
      created_at: new Date('2026-01-01T00:00:00Z'),
    });
    await insert('queued', { network_id: '31337', kind: 'evidence', status: 'queued' });
    await insert('cancelled', { network_id: '31337', kind: 'evidence', status: 'cancelled' });
    await insert('failed', { network_id: '31337', kind: 'trustpoint', status: 'failed' });
    await insert('other network', { network_id: '11155111', kind: 'evidence', status: 'queued' });
  });

  afterAll(async () => {
    await api.close();
  });

  const page = async (query: Record<string, string | number>) => {
    const response = await request(api.app).get(at('/records')).query(query).set(admin.auth);
    expect(response.status).toBe(200);
    return (response.body as { data: Page }).data;
  };

  it('when an admin reads the records of a network, then the acknowledged ones come by id with their status and batch, withdrawn ones and other networks left out', async () => {
    // Act
    const { records, next } = await page({ network: '31337' });

    // Assert
    expect(records.map((record) => record.id)).toEqual([ids.anchored, ids.queued, ids.failed]);
    expect(next).toBeNull();
    expect(records[0]).toMatchObject({
      kind: 'trustpoint',
      status: 'anchored',
      trustPointType: 1,
      transactionHash,
      blockNumber: 42,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(records[1]).toMatchObject({
      kind: 'evidence',
      status: 'queued',
      trustPointType: null,
      transactionHash: null,
      blockNumber: null,
      contract: null,
    });
    // A failed record was left out of its mined batch.
    expect(records[2]).toMatchObject({ status: 'failed', transactionHash: null });
  });

  it('when pages are read with the cursor, then each record comes once and the last page says so', async () => {
    // Act
    const first = await page({ limit: 2 });
    const second = await page({ limit: 2, after: first.next ?? 0 });

    // Assert
    expect(first.records.map((record) => record.id)).toEqual([ids.anchored, ids.queued]);
    expect(first.next).toBe(ids.queued);
    expect(second.records.map((record) => record.id)).toEqual([ids.failed, ids['other network']]);
    expect(second.next).toBe(ids['other network']);
    expect((await page({ limit: 2, after: second.next ?? 0 })).records).toEqual([]);
  });

  it('when records are asked since a time, then only those created at or after it come', async () => {
    // Act
    const { records } = await page({ network: '31337', since: '2026-06-01T00:00:00Z' });

    // Assert
    expect(records.map((record) => record.id)).toEqual([ids.queued, ids.failed]);
  });

  it.each([
    [{ limit: 10_001 }, 'query.limit'],
    [{ network: 'main' }, 'query.network'],
    [{ since: 'yesterday' }, 'query.since'],
    [{ after: -1 }, 'query.after'],
  ])('when the query is %o, then 400 names %s', async (query, field) => {
    // Act
    const response = await request(api.app).get(at('/records')).query(query).set(admin.auth);

    // Assert
    expect(response.status).toBe(400);
    const errors = (response.body as { errors: { field: string }[] }).errors;
    expect(errors.map((error) => error.field)).toContain(field);
  });

  it('when a user without the admin role reads the records, then 403 in the spec shape', async () => {
    // Arrange
    const user = await api.givenUser();

    // Act
    const response = await request(api.app).get(at('/records')).set(user.auth);

    // Assert
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ statusCode: 403, type: 'Forbidden Error' });
  });
});
