import { randomUUID } from 'node:crypto';
import type { CertificateType } from '@trustpoint/domain';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  insertCertificate,
  listCertificates,
  updateCertificateAccess,
  withdrawCertificate,
  type CertificateListFilter,
  type CertificateRecord,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest } from './test-data.js';

const issuedOn = 1_717_171_717_171;

async function givenCertificate(
  knex: Knex,
  userId: string,
  type: CertificateType,
  isPublic: boolean,
): Promise<CertificateRecord> {
  const id = randomUUID();
  const hash = randomDigest();
  return insertCertificate(
    knex,
    {
      id,
      certId: `did:test:certid:${id}`,
      userId,
      type,
      name: 'Counted',
      description: 'Made by a test',
      content: {},
      hash,
      fileHash: null,
      issuedOn,
      expires: null,
      public: isPublic,
      pinEncrypted: null,
      externalId: null,
      networkId: '31337',
    },
    { type: 0, hash, timestamp: issuedOn, networkId: '31337', anchorRecordId: null },
  );
}

const filters: Partial<CertificateListFilter>[] = [
  {},
  { access: 'public' },
  { access: 'private' },
  { type: 'content' },
  { type: 'file' },
  { type: 'url' },
  { type: 'file', access: 'public' },
  { type: 'content', access: 'private' },
];

/** The listed total and a plain count of the rows, for every filter. */
async function totalsAndCounts(knex: Knex, userId: string) {
  const results = [];
  for (const filter of filters) {
    const { total } = await listCertificates(knex, {
      userId,
      offset: 0,
      limit: 1,
      order: 'desc',
      ...filter,
    });
    const query = knex('certificates').where('user_id', userId);
    if (filter.access !== undefined) query.andWhere('public', filter.access === 'public');
    if (filter.type !== undefined) query.andWhere('type', filter.type);
    const row = await query.count({ n: '*' }).first<{ n: number }>();
    results.push({ filter, total, counted: row.n });
  }
  return results;
}

describe.each(testBackends())('certificate counts on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  it('when certificates are created, change access and are withdrawn, then every listed total equals a count of the rows', async () => {
    // Arrange
    const user = await givenUser(db.knex, { credits: 0 });
    const other = await givenUser(db.knex);
    await givenCertificate(db.knex, other.id, 'content', true);
    const created = [
      await givenCertificate(db.knex, user.id, 'content', false),
      await givenCertificate(db.knex, user.id, 'content', true),
      await givenCertificate(db.knex, user.id, 'file', false),
      await givenCertificate(db.knex, user.id, 'file', true),
      await givenCertificate(db.knex, user.id, 'url', false),
    ];
    const [firstContent, publicContent, privateFile, , url] = created as [
      CertificateRecord,
      CertificateRecord,
      CertificateRecord,
      CertificateRecord,
      CertificateRecord,
    ];

    // Act
    await updateCertificateAccess(db.knex, firstContent.id, user.id, { public: true });
    await updateCertificateAccess(db.knex, publicContent.id, user.id, { public: false });
    await updateCertificateAccess(db.knex, privateFile.id, user.id, { public: false });
    await updateCertificateAccess(db.knex, url.id, user.id, { externalId: 'ext-1' });
    await db.knex.transaction((trx) => withdrawCertificate(trx, privateFile.id, user.id));

    // Assert
    const results = await totalsAndCounts(db.knex, user.id);
    for (const result of results) expect(result.total).toBe(result.counted);
    expect(results.map((result) => result.total)).toEqual([4, 2, 2, 2, 1, 1, 1, 1]);
  });

  it('when access changes run concurrently in opposite directions, then none fails and the totals stay exact', async () => {
    // Arrange
    const user = await givenUser(db.knex);
    const privateOnes: CertificateRecord[] = [];
    const publicOnes: CertificateRecord[] = [];
    for (let i = 0; i < 15; i += 1) {
      privateOnes.push(await givenCertificate(db.knex, user.id, 'content', false));
      publicOnes.push(await givenCertificate(db.knex, user.id, 'content', true));
    }

    // Act: each change in its own transaction, so that row locks interleave on PostgreSQL.
    const changes = privateOnes.flatMap((certificate, i) => [
      db.knex.transaction((trx) =>
        updateCertificateAccess(trx, certificate.id, user.id, { public: true }),
      ),
      db.knex.transaction((trx) =>
        updateCertificateAccess(trx, publicOnes[i]?.id ?? '', user.id, { public: false }),
      ),
    ]);
    const outcomes = await Promise.allSettled(changes);

    // Assert
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const results = await totalsAndCounts(db.knex, user.id);
    for (const result of results) expect(result.total).toBe(result.counted);
    expect(results[1]?.total).toBe(15);
  });

  it('when many certificates are written and removed in single statements, then the totals follow them', async () => {
    // Arrange
    const user = await givenUser(db.knex);
    const rows = [
      ...Array.from({ length: 5 }, () => certificateRow(user.id, { type: 'file', public: true })),
      ...Array.from({ length: 3 }, () => certificateRow(user.id, { type: 'url' })),
    ];

    // Act
    await db.knex('certificates').insert(rows);
    await db.knex('certificates').where({ user_id: user.id, type: 'url' }).update({ public: true });
    const removed = rows.slice(0, 2).map((row) => row.id);
    await db.knex('certificates').whereIn('id', removed).delete();

    // Assert
    const results = await totalsAndCounts(db.knex, user.id);
    for (const result of results) expect(result.total).toBe(result.counted);
    expect(results.map((result) => result.total)).toEqual([6, 6, 0, 0, 3, 3, 3, 0]);
  });
});
