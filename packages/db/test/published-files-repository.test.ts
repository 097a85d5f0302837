import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  constraintViolation,
  findPublishedFile,
  insertPublishedFile,
  lockPublishedFileHash,
  unpublishUncertifiedFile,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest } from './test-data.js';

function publishedFile(fileHash = randomDigest()) {
  return {
    fileHash,
    size: 5_000_000_000,
    mediaType: 'application/pdf',
    storagePath: `${fileHash.slice(0, 2)}/${fileHash}`,
  };
}

describe.each(testBackends())('published files on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend, { poolMax: 5 });
  });

  afterAll(async () => {
    await db.close();
  });

  it('when a file is recorded, then it is found by its hash with its size beyond 32 bits', async () => {
    // Arrange
    const file = publishedFile();

    // Act
    const inserted = await insertPublishedFile(db.knex, file);
    const found = await findPublishedFile(db.knex, file.fileHash);

    // Assert
    expect(inserted).toBe(true);
    expect(found).toMatchObject(file);
    expect(found?.createdAt).toBeInstanceOf(Date);
  });

  it('when the same hash is recorded twice, then the second is ignored and the first stays', async () => {
    // Arrange
    const file = publishedFile();
    await insertPublishedFile(db.knex, file);

    // Act
    const second = await insertPublishedFile(db.knex, { ...file, mediaType: 'text/html' });

    // Assert
    expect(second).toBe(false);
    expect((await findPublishedFile(db.knex, file.fileHash))?.mediaType).toBe('application/pdf');
    const rows = await db.knex('published_files').where('file_hash', file.fileHash);
    expect(rows).toHaveLength(1);
  });

  it('when concurrent transactions record the same hash, then exactly one reports it inserted', async () => {
    // Arrange
    const file = publishedFile();

    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        db.knex.transaction(async (trx) => {
          await lockPublishedFileHash(trx, file.fileHash);
          return insertPublishedFile(trx, file);
        }),
      ),
    );

    // Assert
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it('when the recording transaction rolls back, then no row is left', async () => {
    // Arrange
    const file = publishedFile();

    // Act
    const attempt = db.knex.transaction(async (trx) => {
      await insertPublishedFile(trx, file);
      throw new Error('the certificate was refused');
    });

    // Assert
    await expect(attempt).rejects.toThrow('the certificate was refused');
    expect(await findPublishedFile(db.knex, file.fileHash)).toBeUndefined();
  });

  it('when a hash is not a hex digest, then the check constraint refuses it', async () => {
    // Act
    const error: unknown = await insertPublishedFile(db.knex, publishedFile('not-a-digest')).catch(
      (caught: unknown) => caught,
    );

    // Assert
    expect(constraintViolation(error)).toMatchObject({ kind: 'check' });
  });

  it('when a published file has no certificate, then unpublishing removes it, and otherwise keeps it', async () => {
    // Arrange
    const user = await givenUser(db.knex);
    const orphan = publishedFile();
    const certified = publishedFile();
    await insertPublishedFile(db.knex, orphan);
    await insertPublishedFile(db.knex, certified);
    await db
      .knex('certificates')
      .insert(certificateRow(user.id, { type: 'file', file_hash: certified.fileHash }));

    // Act
    const removedOrphan = await unpublishUncertifiedFile(db.knex, orphan.fileHash);
    const removedCertified = await unpublishUncertifiedFile(db.knex, certified.fileHash);

    // Assert
    expect([removedOrphan, removedCertified]).toEqual([true, false]);
    expect(await findPublishedFile(db.knex, orphan.fileHash)).toBeUndefined();
    expect(await findPublishedFile(db.knex, certified.fileHash)).toBeDefined();
  });
});
