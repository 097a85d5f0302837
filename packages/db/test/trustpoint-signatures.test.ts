import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTrustpoint, findCertificate, lockCertificate } from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest, violationOf } from './test-data.js';

describe.each(testBackends())('trustpoint signatures on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  async function givenCertificate() {
    const user = await givenUser(db.knex);
    const row = certificateRow(user.id);
    await db.knex('certificates').insert(row);
    return row;
  }

  const signatureTrustpoint = (timestamp: number, signature?: string) => ({
    type: 2 as const,
    hash: randomDigest(),
    timestamp,
    networkId: '31337',
    anchorRecordId: null,
    ...(signature === undefined ? {} : { signature }),
  });

  it('when a Signature trustpoint is stored with its JWS, then it is read back with it', async () => {
    // Arrange
    const certificate = await givenCertificate();

    // Act
    const added = await addTrustpoint(
      db.knex,
      certificate.id,
      signatureTrustpoint(certificate.issued_on + 1, 'aGVhZGVy.cGF5bG9hZA.c2ln'),
    );
    const found = await findCertificate(db.knex, 'certId', certificate.cert_id);

    // Assert
    expect(added.signature).toBe('aGVhZGVy.cGF5bG9hZA.c2ln');
    expect(found?.trustpoints).toEqual([added]);
  });

  it('when a certificate gets a second Signature trustpoint, then it is a unique violation', async () => {
    // Arrange
    const certificate = await givenCertificate();
    await addTrustpoint(db.knex, certificate.id, signatureTrustpoint(certificate.issued_on + 1));

    // Act
    const violation = await violationOf(
      addTrustpoint(db.knex, certificate.id, signatureTrustpoint(certificate.issued_on + 2)),
    );

    // Assert
    expect(violation).toEqual({ kind: 'unique', constraint: 'trustpoints_one_signature_unique' });
  });

  it('when a trustpoint other than a Signature carries a signature, then it is a check violation', async () => {
    // Arrange
    const certificate = await givenCertificate();

    // Act
    const violation = await violationOf(
      addTrustpoint(db.knex, certificate.id, {
        ...signatureTrustpoint(certificate.issued_on + 1, 'a.b.c'),
        type: 1,
      }),
    );

    // Assert
    expect(violation).toEqual({ kind: 'check', constraint: 'trustpoints_signature_type_check' });
  });

  it('when a certificate is locked, then true, and false for one that does not exist', async () => {
    // Arrange
    const certificate = await givenCertificate();

    // Act
    const locked = await db.knex.transaction((trx) => lockCertificate(trx, certificate.id));
    const missing = await db.knex.transaction((trx) =>
      lockCertificate(trx, '00000000-0000-7000-8000-000000000000'),
    );

    // Assert
    expect([locked, missing]).toEqual([true, false]);
  });
});
