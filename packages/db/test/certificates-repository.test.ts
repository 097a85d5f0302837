import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addTrustpoint,
  claimIdempotencyKey,
  findCertificate,
  findCreditBalance,
  insertCertificate,
  findCertificateRepeats,
  insertCertificatesWithWrites,
  lockCreditBalances,
  listCertificates,
  markCertificateRevoked,
  reanchorCertificate,
  setTrustpointAnchorRecord,
  updateCertificateAccess,
  type CertificateConflict,
  type CertificateListFilter,
  type CertificateRecord,
  type NewCertificate,
  type NewTrustpoint,
  type TrustpointTypeCode,
} from '../src/index.js';
import { openTestDatabase, testBackends, type TestDatabase } from './support/test-database.js';
import { certificateRow, givenUser, randomDigest, uniqueId, violationOf } from './test-data.js';

// Beyond 2^32, so that an int8 read back as anything but a number would show.
const issuedOn = 1_717_171_717_171;

function newCertificate(userId: string, overrides: Partial<NewCertificate> = {}): NewCertificate {
  const id = randomUUID();
  return {
    id,
    certId: `did:test:certid:${id}`,
    userId,
    type: 'content',
    name: 'Test certificate',
    description: 'Made by a test',
    content: { title: 'test' },
    hash: randomDigest(),
    fileHash: null,
    issuedOn,
    expires: null,
    public: false,
    pinEncrypted: null,
    externalId: null,
    networkId: '31337',
    ...overrides,
  };
}

/** The first trustpoint of a certificate: its evidence, at its issue time. */
function evidenceOf(certificate: NewCertificate, overrides: Partial<NewTrustpoint> = {}) {
  const trustpoint: NewTrustpoint = {
    type: 0,
    hash: certificate.hash,
    timestamp: certificate.issuedOn,
    networkId: certificate.networkId,
    anchorRecordId: null,
    ...overrides,
  };
  return trustpoint;
}

async function givenCertificate(
  knex: Knex,
  userId: string,
  overrides: Partial<NewCertificate> = {},
): Promise<CertificateRecord> {
  const certificate = newCertificate(userId, overrides);
  return insertCertificate(knex, certificate, evidenceOf(certificate));
}

async function givenAnchorRecord(
  knex: Knex,
  trustpointType: TrustpointTypeCode,
  hash: string,
): Promise<number> {
  const [row] = await knex('anchor_records')
    .insert({
      network_id: '31337',
      kind: 'trustpoint',
      record_key: `0x${randomDigest()}`,
      hash,
      trustpoint_type: trustpointType,
    })
    .returning<{ id: number }[]>('id');
  if (row === undefined) throw new Error('queuing an anchor record returned no row');
  return row.id;
}

function idsOf(page: { certificates: CertificateRecord[] }): string[] {
  return page.certificates.map((certificate) => certificate.id);
}

/** Ids in the list order: issuedOn, then id (uuids order as their lowercase text does). */
function sortedIds(certificates: CertificateRecord[], order: 'asc' | 'desc'): string[] {
  const ascending = [...certificates].sort(
    (a, b) => a.issuedOn - b.issuedOn || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return (order === 'asc' ? ascending : ascending.reverse()).map((c) => c.id);
}

interface QueryEvent {
  method?: string;
  sql: string;
  bindings?: readonly Knex.RawBinding[];
}

/** The plan PostgreSQL would run a captured query with, one line per element. */
async function planOf(trx: Knex.Transaction, query: QueryEvent): Promise<string[]> {
  // Captured SQL has native $n placeholders, numbered in order; knex.raw wants `?`.
  const result = await trx.raw<{ rows: Record<string, string>[] }>(
    `explain ${query.sql.replace(/\$\d+/g, '?')}`,
    query.bindings ?? [],
  );
  return result.rows.map((row) => row['QUERY PLAN'] ?? '');
}

/**
 * Certificates created through `insertCertificatesWithWrites` with no trustpoints, each with its
 * audit entry: which go in, as stored, and why the others were skipped.
 */
async function insertPlain(
  trx: Knex.Transaction,
  certificates: readonly NewCertificate[],
): Promise<{
  inserted: Map<string, CertificateRecord>;
  conflicts: Map<string, CertificateConflict>;
}> {
  const { inserted, conflicts } = await insertCertificatesWithWrites(
    trx,
    certificates.map((certificate) => ({
      certificate,
      trustpoints: [],
      audit: {
        actorId: certificate.userId,
        requestId: null,
        action: 'certificate.create',
        target: `certificate:${certificate.certId}`,
      },
    })),
  );
  return {
    inserted: new Map([...inserted].map(([id, { record }]) => [id, record])),
    conflicts,
  };
}

/** What insertCertificatesWithWrites answers for a certificate it inserted: as stored, no trustpoints yet. */
function storedWithoutTrustpoints(certificate: NewCertificate) {
  return {
    contentDigest: certificate.hash,
    hashVersion: 1,
    issuerOrigin: null,
    issuerDomain: null,
    selectiveDisclosure: null,
    ...certificate,
    revokedAt: null,
    createdAt: expect.any(Date) as unknown,
    trustpoints: [],
  };
}

describe.each(testBackends())('certificates repository on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });

  afterAll(async () => {
    await db.close();
  });

  describe('insertCertificate and findCertificate', () => {
    it('when a certificate is inserted, then it is returned and found with its first trustpoint, every field mapped', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = newCertificate(user.id, {
        type: 'file',
        content: { title: 'Deed', tags: ['a', 'b'], nested: { pages: 3 } },
        fileHash: randomDigest(),
        expires: issuedOn + 86_400_000,
        public: true,
        pinEncrypted: 'encrypted-pin',
        externalId: uniqueId('external'),
      });
      const anchorRecordId = await givenAnchorRecord(db.knex, 0, certificate.hash);

      // Act
      const inserted = await db.knex.transaction((trx) =>
        insertCertificate(trx, certificate, evidenceOf(certificate, { anchorRecordId })),
      );

      // Assert
      expect(inserted).toEqual({
        ...certificate,
        contentDigest: certificate.hash,
        hashVersion: 1,
        issuerOrigin: null,
        issuerDomain: null,
        selectiveDisclosure: null,
        revokedAt: null,
        createdAt: expect.any(Date) as unknown,
        trustpoints: [
          {
            type: 0,
            hash: certificate.hash,
            timestamp: issuedOn,
            networkId: '31337',
            smartContract: null,
            transactionHash: null,
            anchoredAt: null,
            anchorRecordId,
            status: 'pending',
          },
        ],
      });
      expect(await findCertificate(db.knex, 'certId', certificate.certId)).toEqual(inserted);
    });

    it("when looked up by certId, externalId, fileHash or hash with the owner's id, then each finds the certificate", async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id, {
        fileHash: randomDigest(),
        externalId: uniqueId('external'),
      });
      const values = {
        certId: certificate.certId,
        externalId: certificate.externalId ?? '',
        fileHash: certificate.fileHash ?? '',
        hash: certificate.hash,
      };

      // Act
      const found = await Promise.all(
        Object.entries(values).map(([lookup, value]) =>
          findCertificate(db.knex, lookup as keyof typeof values, value, user.id),
        ),
      );

      // Assert
      expect(found).toEqual([certificate, certificate, certificate, certificate]);
    });

    it('when another user looks up by externalId, fileHash or hash, then nothing is found, but by certId it is, whoever asks', async () => {
      // Arrange
      const [owner, other] = [await givenUser(db.knex), await givenUser(db.knex)];
      const certificate = await givenCertificate(db.knex, owner.id, {
        fileHash: randomDigest(),
        externalId: uniqueId('external'),
      });

      // Act
      const byOther = [
        await findCertificate(db.knex, 'externalId', certificate.externalId ?? '', other.id),
        await findCertificate(db.knex, 'fileHash', certificate.fileHash ?? '', other.id),
        await findCertificate(db.knex, 'hash', certificate.hash, other.id),
      ];
      const byCertId = [
        await findCertificate(db.knex, 'certId', certificate.certId, other.id),
        await findCertificate(db.knex, 'certId', certificate.certId),
      ];

      // Assert
      expect(byOther).toEqual([undefined, undefined, undefined]);
      expect(byCertId).toEqual([certificate, certificate]);
    });

    it('when several of the owner’s certificates share a file hash, then the newest is found', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const fileHash = randomDigest();
      await givenCertificate(db.knex, user.id, { fileHash, issuedOn: issuedOn - 2000 });
      const newest = await givenCertificate(db.knex, user.id, { fileHash, issuedOn });
      await givenCertificate(db.knex, user.id, { fileHash, issuedOn: issuedOn - 1000 });

      // Act
      const found = await findCertificate(db.knex, 'fileHash', fileHash, user.id);

      // Assert
      expect(found?.id).toBe(newest.id);
    });

    it('when nothing matches, then finding returns undefined', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      await givenCertificate(db.knex, user.id);

      // Act
      const found = [
        await findCertificate(db.knex, 'certId', `did:test:certid:${randomUUID()}`),
        await findCertificate(db.knex, 'externalId', uniqueId('external'), user.id),
        await findCertificate(db.knex, 'fileHash', randomDigest(), user.id),
        await findCertificate(db.knex, 'hash', randomDigest(), user.id),
      ];

      // Assert
      expect(found).toEqual([undefined, undefined, undefined, undefined]);
    });

    it('when an owner-scoped lookup has no owner id, then it throws without querying', async () => {
      // Arrange
      const hash = randomDigest();

      // Act
      const finding = findCertificate(db.knex, 'hash', hash);

      // Assert
      await expect(finding).rejects.toThrow(TypeError);
    });

    it('when the first trustpoint cannot be stored, then the certificate is not stored either', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = newCertificate(user.id);
      const unknownAnchorRecord = evidenceOf(certificate, { anchorRecordId: 2 ** 40 });

      // Act
      const violation = await violationOf(
        insertCertificate(db.knex, certificate, unknownAnchorRecord),
      );

      // Assert
      expect(violation?.kind).toBe('foreign-key');
      expect(await findCertificate(db.knex, 'certId', certificate.certId)).toBeUndefined();
    });
  });

  describe('hash version 2', () => {
    const selectiveDisclosure = {
      content: { _sd: ['digest-a'], nested: [{ '...': 'digest-b' }] },
      disclosures: ['WyJzYWx0IiwgImEiLCAxXQ', 'WyJzYWx0IiwgMl0'],
    };

    it('when a version 2 certificate is inserted, then it is found with its anchored hash, its unsalted digest and its disclosures', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = newCertificate(user.id, {
        hash: randomDigest(),
        contentDigest: randomDigest(),
        hashVersion: 2,
        issuerOrigin: 'https://trustpoint.example',
        issuerDomain: 'university.example',
        selectiveDisclosure,
      });

      // Act
      const inserted = await insertCertificate(db.knex, certificate, evidenceOf(certificate));
      const byDigest = await findCertificate(
        db.knex,
        'hash',
        certificate.contentDigest ?? '',
        user.id,
      );
      const byAnchoredHash = await findCertificate(db.knex, 'hash', certificate.hash, user.id);

      // Assert
      expect(inserted).toMatchObject({
        hash: certificate.hash,
        contentDigest: certificate.contentDigest,
        hashVersion: 2,
        issuerOrigin: 'https://trustpoint.example',
        issuerDomain: 'university.example',
        selectiveDisclosure,
      });
      expect(await findCertificate(db.knex, 'certId', certificate.certId)).toEqual(inserted);
      expect(byDigest?.certId).toBe(certificate.certId);
      expect(byAnchoredHash?.certId).toBe(certificate.certId);
    });

    it('when a version 2 certificate repeats the unsalted digest of a version 1 one, then it is refused as a repeat of the hash', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 1 });
      const first = await givenCertificate(db.knex, user.id);
      const repeat = newCertificate(user.id, {
        hash: randomDigest(),
        contentDigest: first.hash,
        hashVersion: 2,
        issuerOrigin: null,
        selectiveDisclosure,
      });

      // Act
      const insertion = await db.knex.transaction((trx) => insertPlain(trx, [repeat]));
      const repeats = await findCertificateRepeats(db.knex, [repeat]);

      // Assert
      expect(insertion.inserted.size).toBe(0);
      expect(insertion.conflicts.get(repeat.id)).toBe('hash');
      expect(repeats.get(repeat.id)).toBe('hash');
    });

    it('when a version 1 certificate is re-anchored, then it becomes version 2 once and is found by both hashes', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);
      const root = randomDigest();
      const v2 = { hash: root, issuerOrigin: null, issuerDomain: null, selectiveDisclosure };

      // Act
      const first = await reanchorCertificate(db.knex, certificate.id, v2);
      const again = await reanchorCertificate(db.knex, certificate.id, {
        ...v2,
        hash: randomDigest(),
      });
      const found = await findCertificate(db.knex, 'hash', root, user.id);

      // Assert
      expect([first, again]).toEqual([true, false]);
      expect(found).toMatchObject({
        certId: certificate.certId,
        hash: root,
        contentDigest: certificate.hash,
        hashVersion: 2,
        selectiveDisclosure,
      });
      expect((await findCertificate(db.knex, 'hash', certificate.hash, user.id))?.hash).toBe(root);
    });

    it('when a version 2 row lacks its disclosures, then the database refuses it', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const violation = await violationOf(
        db
          .knex('certificates')
          .insert(certificateRow(user.id, { hash_version: 2, anchored_hash: randomDigest() })),
      );

      // Assert
      expect(violation).toMatchObject({ constraint: 'certificates_hash_version_check' });
    });
  });

  describe('trustpoints', () => {
    it('when trustpoints are added out of order and one is anchored, then they are listed by timestamp, every field mapped', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);
      const revocationHash = randomDigest();
      const signatureHash = randomDigest();
      const signatureRecordId = await givenAnchorRecord(db.knex, 2, signatureHash);
      const anchoredAt = new Date('2024-06-01T12:00:00.000Z');
      const smartContract = `0x${'ab'.repeat(20)}`;
      const transactionHash = `0x${randomDigest()}`;

      // Act
      const revocation = await addTrustpoint(db.knex, certificate.id, {
        type: 1,
        hash: revocationHash,
        timestamp: issuedOn + 2000,
        networkId: '31337',
        anchorRecordId: null,
      });
      await addTrustpoint(db.knex, certificate.id, {
        type: 2,
        hash: signatureHash,
        timestamp: issuedOn + 1000,
        networkId: '31337',
        anchorRecordId: signatureRecordId,
      });
      // What the anchoring engine writes once the evidence is on-chain.
      await db
        .knex('trustpoints')
        .where({ certificate_id: certificate.id, timestamp: issuedOn })
        .update({
          smart_contract: smartContract,
          transaction_hash: transactionHash,
          anchored_at: anchoredAt,
        });
      const found = await findCertificate(db.knex, 'certId', certificate.certId);

      // Assert
      expect(revocation).toEqual({
        type: 1,
        hash: revocationHash,
        timestamp: issuedOn + 2000,
        networkId: '31337',
        smartContract: null,
        transactionHash: null,
        anchoredAt: null,
        anchorRecordId: null,
        status: 'pending',
      });
      expect(found?.trustpoints).toEqual([
        {
          type: 0,
          hash: certificate.hash,
          timestamp: issuedOn,
          networkId: '31337',
          smartContract,
          transactionHash,
          anchoredAt,
          anchorRecordId: null,
          status: 'anchored',
        },
        {
          type: 2,
          hash: signatureHash,
          timestamp: issuedOn + 1000,
          networkId: '31337',
          smartContract: null,
          transactionHash: null,
          anchoredAt: null,
          anchorRecordId: signatureRecordId,
          status: 'pending',
        },
        revocation,
      ]);
    });

    it('when a trustpoint is added at a timestamp the certificate already has, then it is a unique violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);

      // Act
      const violation = await violationOf(
        addTrustpoint(db.knex, certificate.id, {
          type: 1,
          hash: randomDigest(),
          timestamp: certificate.issuedOn,
          networkId: '31337',
          anchorRecordId: null,
        }),
      );

      // Assert
      expect(violation).toEqual({
        kind: 'unique',
        constraint: 'trustpoints_certificate_timestamp_unique',
      });
    });

    it('when a trustpoint is queued after it is inserted, then only that trustpoint gets the anchor record', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);
      const revocation = await addTrustpoint(db.knex, certificate.id, {
        type: 1,
        hash: randomDigest(),
        timestamp: issuedOn + 1000,
        networkId: '31337',
        anchorRecordId: null,
      });
      const anchorRecordId = await givenAnchorRecord(db.knex, 1, revocation.hash);

      // Act
      await setTrustpointAnchorRecord(db.knex, certificate.id, issuedOn + 1000, anchorRecordId);

      // Assert
      const found = await findCertificate(db.knex, 'certId', certificate.certId);
      expect(found?.trustpoints.map((trustpoint) => trustpoint.anchorRecordId)).toEqual([
        null,
        anchorRecordId,
      ]);
    });

    it('when the certificate has no trustpoint at that timestamp, then setting its anchor record throws', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);
      const anchorRecordId = await givenAnchorRecord(db.knex, 1, randomDigest());

      // Act
      const setting = setTrustpointAnchorRecord(
        db.knex,
        certificate.id,
        issuedOn + 5000,
        anchorRecordId,
      );

      // Assert
      await expect(setting).rejects.toThrow('has no trustpoint at timestamp');
    });
  });

  describe('unique violations', () => {
    it('when a user certifies the same hash twice, then the second insert is a unique violation and leaves nothing', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const first = await givenCertificate(db.knex, user.id);
      const second = newCertificate(user.id, { hash: first.hash });

      // Act
      const violation = await violationOf(
        db.knex.transaction((trx) => insertCertificate(trx, second, evidenceOf(second))),
      );

      // Assert
      expect(violation).toEqual({ kind: 'unique', constraint: 'certificates_user_hash_unique' });
      expect(await findCertificate(db.knex, 'certId', second.certId)).toBeUndefined();
    });

    it('when two users certify the same hash, then both are stored', async () => {
      // Arrange
      const [alice, bob] = [await givenUser(db.knex), await givenUser(db.knex)];
      const hash = randomDigest();
      await givenCertificate(db.knex, alice.id, { hash });

      // Act
      const bobs = await givenCertificate(db.knex, bob.id, { hash });

      // Assert
      expect(await findCertificate(db.knex, 'hash', hash, bob.id)).toEqual(bobs);
      expect((await findCertificate(db.knex, 'hash', hash, alice.id))?.userId).toBe(alice.id);
    });

    it('when a user reuses an external id, then the second insert is a unique violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const externalId = uniqueId('external');
      await givenCertificate(db.knex, user.id, { externalId });
      const second = newCertificate(user.id, { externalId });

      // Act
      const violation = await violationOf(insertCertificate(db.knex, second, evidenceOf(second)));

      // Assert
      expect(violation).toEqual({
        kind: 'unique',
        constraint: 'certificates_user_external_id_unique',
      });
    });

    it('when a user has several certificates without an external id, then all are stored', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      for (let i = 0; i < 3; i += 1) await givenCertificate(db.knex, user.id, { externalId: null });

      // Assert
      const page = await listCertificates(db.knex, {
        userId: user.id,
        offset: 0,
        limit: 10,
        order: 'desc',
      });
      expect(page.total).toBe(3);
    });
  });

  describe('findCertificateRepeats', () => {
    it('when certificates repeat a hash or an external id of their user, then each is named with what it repeats', async () => {
      // Arrange
      const [user, other] = [await givenUser(db.knex), await givenUser(db.knex)];
      const existing = await givenCertificate(db.knex, user.id, {
        externalId: uniqueId('external'),
      });
      const sameHash = newCertificate(user.id, { hash: existing.hash });
      const sameExternalId = newCertificate(user.id, { externalId: existing.externalId });
      const both = newCertificate(user.id, {
        hash: existing.hash,
        externalId: existing.externalId,
      });
      const othersHash = newCertificate(other.id, {
        hash: existing.hash,
        externalId: existing.externalId,
      });
      const fresh = newCertificate(user.id, { externalId: uniqueId('external') });

      // Act
      const repeats = await findCertificateRepeats(db.knex, [
        sameHash,
        sameExternalId,
        both,
        othersHash,
        fresh,
      ]);

      // Assert
      expect(repeats).toEqual(
        new Map([
          [sameHash.id, 'hash'],
          [sameExternalId.id, 'externalId'],
          [both.id, 'hash'],
        ]),
      );
    });
  });

  describe('insertCertificatesWithWrites', () => {
    /** A certificate with an Evidence trustpoint and its record, and its audit entry. */
    const withWrites = (certificate: NewCertificate, qualified = false) => {
      const types: (0 | 2)[] = qualified ? [0, 2] : [0];
      return {
        certificate,
        trustpoints: types.map((type, position) => {
          const timestamp = certificate.issuedOn + position;
          const trustpoint = {
            type,
            hash: certificate.hash,
            timestamp,
            networkId: '31337',
            ...(type === 2 ? { signature: `0x${'ab'.repeat(65)}` } : {}),
          };
          return {
            trustpoint,
            record: {
              networkId: '31337',
              kind: 'trustpoint' as const,
              recordKey: `0x${createHash('sha256')
                .update(`${certificate.certId}@${String(timestamp)}`)
                .digest('hex')}`,
              hash: certificate.hash,
              timestamp,
              trustPointType: type,
              ...(type === 0 ? { paidBy: certificate.userId } : {}),
            },
          };
        }),
        audit: {
          actorId: certificate.userId,
          requestId: uniqueId('request'),
          action: 'certificate.create',
          target: `certificate:${certificate.certId}`,
          changes: { name: certificate.name },
        },
      };
    };

    it('when certificates are created with their writes, then each inserted one has its records queued, its trustpoints on them, its audit entry and one credit spent, and a repeat has none of them', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const existing = await givenCertificate(db.knex, user.id);
      const items = [
        withWrites(newCertificate(user.id)),
        withWrites(newCertificate(user.id, { hash: existing.hash })),
        withWrites(newCertificate(user.id), true),
      ];
      const [plain, repeat, qualified] = items.map((item) => item.certificate) as [
        NewCertificate,
        NewCertificate,
        NewCertificate,
      ];

      // Act
      const { inserted, conflicts } = await db.knex.transaction(async (trx) => {
        await lockCreditBalances(trx, [user.id]);
        return insertCertificatesWithWrites(trx, items);
      });

      // Assert
      expect(conflicts).toEqual(new Map([[repeat.id, 'hash']]));
      expect([...inserted.keys()].sort()).toEqual([plain.id, qualified.id].sort());
      expect(inserted.get(plain.id)?.record).toEqual(storedWithoutTrustpoints(plain));
      expect(inserted.get(qualified.id)?.recordIds).toHaveLength(2);
      const records = await db
        .knex('anchor_records')
        .whereIn(
          'id',
          [...inserted.values()].flatMap((entry) => entry.recordIds),
        )
        .select<{ id: number; record_key: string }[]>('id', 'record_key');
      expect(records).toHaveLength(3);
      for (const item of [items[0], items[2]]) {
        const ids = inserted.get(item?.certificate.id ?? '')?.recordIds ?? [];
        expect(ids.map((id) => records.find((record) => record.id === id)?.record_key)).toEqual(
          item?.trustpoints.map(({ record }) => record.recordKey),
        );
      }
      const stored = await findCertificate(db.knex, 'certId', qualified.certId);
      expect(
        stored?.trustpoints.map((trustpoint) => [trustpoint.type, trustpoint.anchorRecordId]),
      ).toEqual([
        [0, inserted.get(qualified.id)?.recordIds[0]],
        [2, inserted.get(qualified.id)?.recordIds[1]],
      ]);
      expect(await findCertificate(db.knex, 'certId', repeat.certId)).toBeUndefined();
      expect(
        await db
          .knex('anchor_records')
          .where('record_key', items[1]?.trustpoints[0]?.record.recordKey ?? '')
          .first(),
      ).toBeUndefined();
      const audited = await db
        .knex('audit_log')
        .whereIn(
          'target',
          [plain, repeat, qualified].map((certificate) => `certificate:${certificate.certId}`),
        )
        .select<{ target: string }[]>('target');
      expect(audited.map((row) => row.target).sort()).toEqual(
        [`certificate:${plain.certId}`, `certificate:${qualified.certId}`].sort(),
      );
      expect(await findCreditBalance(db.knex, user.id)).toBe(8);
    });

    it('when a user has fewer credits than certificates, then the statement fails on the balance and nothing of it stays', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 1 });
      const items = [withWrites(newCertificate(user.id)), withWrites(newCertificate(user.id))];

      // Act
      const violation = await violationOf(
        db.knex.transaction((trx) => insertCertificatesWithWrites(trx, items)),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'credits_balance_check' });
      expect(await findCreditBalance(db.knex, user.id)).toBe(1);
      for (const { certificate } of items) {
        expect(await findCertificate(db.knex, 'certId', certificate.certId)).toBeUndefined();
      }
    });

    it('when it locks the balances itself and runs on its own, then it commits the inserted ones with their records, trustpoints, audit entries and spent credits, and a repeat has none', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 5 });
      const existing = await givenCertificate(db.knex, user.id);
      const [plain, repeat] = [
        withWrites(newCertificate(user.id)),
        withWrites(newCertificate(user.id, { hash: existing.hash })),
      ];

      // Act
      const { inserted, conflicts } = await insertCertificatesWithWrites(db.knex, [plain, repeat], {
        locksBalances: true,
      });

      // Assert
      expect([...inserted.keys()]).toEqual([plain.certificate.id]);
      expect(conflicts).toEqual(new Map([[repeat.certificate.id, 'hash']]));
      const stored = await findCertificate(db.knex, 'certId', plain.certificate.certId);
      expect(stored).toEqual({
        ...inserted.get(plain.certificate.id)?.record,
        trustpoints: [
          expect.objectContaining({
            anchorRecordId: inserted.get(plain.certificate.id)?.recordIds[0],
          }),
        ],
      });
      const audited = await db
        .knex('audit_log')
        .where('target', `certificate:${plain.certificate.certId}`)
        .count<{ count: string | number }[]>('* as count');
      expect(Number(audited[0]?.count)).toBe(1);
      expect(await findCreditBalance(db.knex, user.id)).toBe(4);
    });

    it('when it locks the balances itself and a user has fewer credits than certificates, then it fails on the balance and nothing of it stays', async () => {
      // Arrange
      const [rich, poor] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 1 }),
      ];
      const items = [
        withWrites(newCertificate(rich.id)),
        withWrites(newCertificate(poor.id)),
        withWrites(newCertificate(poor.id)),
      ];

      // Act
      const violation = await violationOf(
        insertCertificatesWithWrites(db.knex, items, { locksBalances: true }),
      );

      // Assert
      expect(violation).toEqual({ kind: 'check', constraint: 'credits_balance_check' });
      expect(await findCreditBalance(db.knex, rich.id)).toBe(5);
      expect(await findCreditBalance(db.knex, poor.id)).toBe(1);
      for (const { certificate } of items) {
        expect(await findCertificate(db.knex, 'certId', certificate.certId)).toBeUndefined();
      }
    });

    it("when it locks the balances itself and commits the requests' Idempotency-Keys, then a request still holding its key gets its certificate and the key names it, and one whose key a retry took over gets nothing", async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 5 });
      const now = Date.now();
      const claimAt = async (key: string, owner: string, at: number) => {
        const outcome = await claimIdempotencyKey(db.knex, {
          userId: user.id,
          key,
          fingerprint: 'same request',
          owner,
          now: at,
          leaseMs: 1_000,
          retentionMs: 86_400_000,
        });
        if (outcome.kind !== 'claimed') throw new Error(`expected claimed, got ${outcome.kind}`);
        return outcome.claim;
      };
      const held = await claimAt(uniqueId('key'), uniqueId('owner'), now);
      const lostKey = uniqueId('key');
      // Its lease ran out: a retry took the key over.
      const lost = await claimAt(lostKey, uniqueId('owner'), now - 5_000);
      const retry = await claimAt(lostKey, uniqueId('owner'), now);
      const [keyed, taken, plain] = [
        { ...withWrites(newCertificate(user.id)), idempotency: held },
        { ...withWrites(newCertificate(user.id)), idempotency: lost },
        withWrites(newCertificate(user.id)),
      ];

      // Act
      const { inserted, conflicts, keysLost } = await insertCertificatesWithWrites(
        db.knex,
        [keyed, taken, plain],
        { locksBalances: true },
      );

      // Assert
      expect([...inserted.keys()].sort()).toEqual(
        [keyed.certificate.id, plain.certificate.id].sort(),
      );
      expect(keysLost).toEqual(new Set([taken.certificate.id]));
      expect(conflicts).toEqual(new Map());
      const keyRow = (key: string) =>
        db
          .knex('idempotency_keys')
          .where({ user_id: user.id, key })
          .first<{ state: string; owner: string; resource: string | null }>(
            'state',
            'owner',
            'resource',
          );
      expect(await keyRow(held.key)).toEqual({
        state: 'committed',
        owner: held.owner,
        resource: keyed.certificate.certId,
      });
      expect(await keyRow(lostKey)).toEqual({
        state: 'running',
        owner: retry.owner,
        resource: null,
      });
      expect(await findCertificate(db.knex, 'certId', taken.certificate.certId)).toBeUndefined();
      expect(await findCreditBalance(db.knex, user.id)).toBe(3);
    });

    it('when it locks the balances itself and a user has no balance row at all, then that user gets nothing and the others go in', async () => {
      // Arrange
      const [paying, unknown] = [
        await givenUser(db.knex, { credits: 5 }),
        await givenUser(db.knex, { credits: 5 }),
      ];
      await db.knex('credits').where('user_id', unknown.id).delete();
      const [paid, free] = [
        withWrites(newCertificate(paying.id)),
        withWrites(newCertificate(unknown.id)),
      ];

      // Act
      const { inserted, conflicts, withoutBalance } = await insertCertificatesWithWrites(
        db.knex,
        [paid, free],
        { locksBalances: true },
      );

      // Assert
      expect([...inserted.keys()]).toEqual([paid.certificate.id]);
      expect(withoutBalance).toEqual(new Set([free.certificate.id]));
      expect(conflicts).toEqual(new Map());
      expect(await findCertificate(db.knex, 'certId', free.certificate.certId)).toBeUndefined();
      expect(await findCreditBalance(db.knex, paying.id)).toBe(4);
    });

    it('when keys are given to a statement that does not lock the balances, then it throws before anything is sent', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 5 });
      const claim = { userId: user.id, key: uniqueId('key'), owner: uniqueId('owner') };
      const item = { ...withWrites(newCertificate(user.id)), idempotency: claim };

      // Act
      const thrown = await db.knex
        .transaction((trx) => insertCertificatesWithWrites(trx, [item]))
        .catch((error: unknown) => error);

      // Assert
      expect(thrown).toBeInstanceOf(TypeError);
      expect(await findCertificate(db.knex, 'certId', item.certificate.certId)).toBeUndefined();
    });

    it('when it locks the balances itself while a transaction holds one, then it inserts nothing until that commits, so a repeat the transaction inserts meanwhile is its conflict and nobody deadlocks', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 5 });
      const hash = randomDigest();
      const theirs = withWrites(newCertificate(user.id, { hash }));
      const mine = withWrites(newCertificate(user.id, { hash }));
      let statement: ReturnType<typeof insertCertificatesWithWrites> | undefined;

      // Act: the transaction holds the balance, the statement starts, then the transaction inserts
      // the same hash: had the statement inserted before waiting for the balance, each would wait
      // for the other.
      const transaction = db.knex.transaction(async (trx) => {
        await lockCreditBalances(trx, [user.id]);
        statement = insertCertificatesWithWrites(db.knex, [mine], { locksBalances: true });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return insertCertificatesWithWrites(trx, [theirs]);
      });
      const theirInsertion = await transaction;
      const myInsertion = await (statement as NonNullable<typeof statement>);

      // Assert
      expect([...theirInsertion.inserted.keys()]).toEqual([theirs.certificate.id]);
      expect(myInsertion.inserted.size).toBe(0);
      expect(myInsertion.conflicts).toEqual(new Map([[mine.certificate.id, 'hash']]));
      expect(await findCreditBalance(db.knex, user.id)).toBe(4);
    });
  });

  describe('insertCertificatesWithWrites: which certificates go in', () => {
    it('when several certificates are inserted, then each is returned as stored and can be found', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const certificates = [
        newCertificate(user.id),
        newCertificate(user.id, { type: 'file', fileHash: randomDigest(), public: true }),
        newCertificate(user.id, { externalId: uniqueId('external'), content: { list: [1, 2] } }),
      ];

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, certificates),
      );

      // Assert
      expect(conflicts).toEqual(new Map());
      expect(inserted).toEqual(
        new Map(certificates.map((c) => [c.id, storedWithoutTrustpoints(c)])),
      );
      for (const certificate of certificates) {
        expect(await findCertificate(db.knex, 'certId', certificate.certId)).toEqual(
          inserted.get(certificate.id),
        );
      }
    });

    it('when one repeats a hash the user already has, then it alone is skipped as a hash conflict', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const existing = await givenCertificate(db.knex, user.id);
      const [before, repeat, after] = [
        newCertificate(user.id),
        newCertificate(user.id, { hash: existing.hash }),
        newCertificate(user.id),
      ];

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, [before, repeat, after]),
      );

      // Assert
      expect([...inserted.keys()].sort()).toEqual([before.id, after.id].sort());
      expect(conflicts).toEqual(new Map([[repeat.id, 'hash']]));
      expect(await findCertificate(db.knex, 'certId', repeat.certId)).toBeUndefined();
      expect(await findCertificate(db.knex, 'hash', existing.hash, user.id)).toEqual(existing);
    });

    it('when the hash is one another user already has, then it is no conflict', async () => {
      // Arrange
      const [alice, bob] = [
        await givenUser(db.knex, { credits: 10 }),
        await givenUser(db.knex, { credits: 10 }),
      ];
      const alices = await givenCertificate(db.knex, alice.id);
      const bobs = newCertificate(bob.id, { hash: alices.hash });

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) => insertPlain(trx, [bobs]));

      // Assert
      expect(conflicts).toEqual(new Map());
      expect(inserted.get(bobs.id)).toEqual(storedWithoutTrustpoints(bobs));
    });

    it('when one repeats an external id the user already has, then it is skipped as an externalId conflict', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const externalId = uniqueId('external');
      await givenCertificate(db.knex, user.id, { externalId });
      const [repeat, other] = [
        newCertificate(user.id, { externalId }),
        newCertificate(user.id, { externalId: uniqueId('external') }),
      ];

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, [repeat, other]),
      );

      // Assert
      expect([...inserted.keys()]).toEqual([other.id]);
      expect(conflicts).toEqual(new Map([[repeat.id, 'externalId']]));
    });

    it('when the same hash or external id comes twice in one call, then the first is inserted and the second is its conflict', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const hash = randomDigest();
      const externalId = uniqueId('external');
      const [firstHash, secondHash] = [
        newCertificate(user.id, { hash }),
        newCertificate(user.id, { hash }),
      ];
      const [firstExternal, secondExternal] = [
        newCertificate(user.id, { externalId }),
        newCertificate(user.id, { externalId }),
      ];

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, [firstHash, firstExternal, secondHash, secondExternal]),
      );

      // Assert
      expect([...inserted.keys()].sort()).toEqual([firstHash.id, firstExternal.id].sort());
      expect(conflicts).toEqual(
        new Map([
          [secondHash.id, 'hash'],
          [secondExternal.id, 'externalId'],
        ]),
      );
    });

    it('when a certificate repeats only an external id and a later one in the call has its hash, then its conflict is the external id', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const externalId = uniqueId('external');
      await givenCertificate(db.knex, user.id, { externalId });
      const hash = randomDigest();
      const repeat = newCertificate(user.id, { hash, externalId });
      const later = newCertificate(user.id, { hash });

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, [repeat, later]),
      );

      // Assert: one at a time, the first fails on its external id and the second goes in.
      expect([...inserted.keys()]).toEqual([later.id]);
      expect(conflicts).toEqual(new Map([[repeat.id, 'externalId']]));
    });

    it('when one repeats both the hash and the external id of the user, then the conflict is the hash', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const existing = await givenCertificate(db.knex, user.id, {
        externalId: uniqueId('external'),
      });
      const repeat = newCertificate(user.id, {
        hash: existing.hash,
        externalId: existing.externalId,
      });

      // Act
      const { inserted, conflicts } = await db.knex.transaction((trx) =>
        insertPlain(trx, [repeat]),
      );

      // Assert
      expect(inserted).toEqual(new Map());
      expect(conflicts).toEqual(new Map([[repeat.id, 'hash']]));
    });

    it('when two transactions insert the same hash at once, then exactly one is inserted and the other reports a hash conflict', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const hash = randomDigest();
      const [mine, theirs] = [newCertificate(user.id, { hash }), newCertificate(user.id, { hash })];

      // Act
      const insertions = await Promise.all(
        [mine, theirs].map((certificate) =>
          db.knex.transaction(async (trx) => {
            const insertion = await insertPlain(trx, [certificate]);
            // Hold the row a moment, so that on PostgreSQL the other insert waits on it.
            await trx.raw('select pg_sleep(0.05)');
            return insertion;
          }),
        ),
      );

      // Assert
      expect(insertions.map(({ inserted }) => inserted.size).sort()).toEqual([0, 1]);
      expect(insertions.flatMap(({ conflicts }) => [...conflicts.values()])).toEqual(['hash']);
      const page = await listCertificates(db.knex, {
        userId: user.id,
        offset: 0,
        limit: 10,
        order: 'desc',
      });
      expect(page.total).toBe(1);
    });

    it('when some are skipped, then the certificate counters count only those inserted', async () => {
      // Arrange
      const user = await givenUser(db.knex, { credits: 10 });
      const externalId = uniqueId('external');
      const existing = await givenCertificate(db.knex, user.id, { externalId });
      const certificates = [
        newCertificate(user.id, { type: 'file', public: true }),
        newCertificate(user.id),
        newCertificate(user.id, { type: 'file', public: true, hash: existing.hash }),
        newCertificate(user.id, { type: 'url', public: true, externalId }),
      ];
      const filters: Partial<CertificateListFilter>[] = [
        {},
        { access: 'public' },
        { access: 'private' },
        { type: 'file' },
        { type: 'content' },
        { type: 'url' },
      ];

      // Act
      await db.knex.transaction((trx) => insertPlain(trx, certificates));

      // Assert
      const totals = [];
      for (const filter of filters) {
        const page = await listCertificates(db.knex, {
          userId: user.id,
          offset: 0,
          limit: 10,
          order: 'desc',
          ...filter,
        });
        // The listed certificates are read from the rows, the total from the counters.
        expect(page.total).toBe(page.certificates.length);
        totals.push(page.total);
      }
      expect(totals).toEqual([3, 1, 2, 1, 2, 0]);
    });

    it('when the list is empty, then nothing is inserted and nothing conflicts', async () => {
      // Arrange
      const none: NewCertificate[] = [];

      // Act
      const insertion = await db.knex.transaction((trx) => insertPlain(trx, none));

      // Assert
      expect(insertion).toEqual({ inserted: new Map(), conflicts: new Map() });
    });
  });

  describe('listCertificates', () => {
    const firstPage = { offset: 0, limit: 100, order: 'desc' } as const;

    it('when paged with offset and limit, then each page is a slice of the ordered list and the total counts all', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificates: CertificateRecord[] = [];
      for (let i = 0; i < 5; i += 1) {
        certificates.push(await givenCertificate(db.knex, user.id, { issuedOn: issuedOn + i }));
      }
      const newestFirst = sortedIds(certificates, 'desc');

      // Act
      const page = await listCertificates(db.knex, {
        userId: user.id,
        offset: 1,
        limit: 2,
        order: 'desc',
      });
      const pastTheEnd = await listCertificates(db.knex, {
        userId: user.id,
        offset: 5,
        limit: 2,
        order: 'desc',
      });

      // Assert
      expect(idsOf(page)).toEqual(newestFirst.slice(1, 3));
      expect(page.total).toBe(5);
      expect(pastTheEnd).toEqual({ certificates: [], total: 5 });
    });

    it('when several certificates share an issuedOn, then asc and desc order them by id and pages neither repeat nor skip', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificates = [
        await givenCertificate(db.knex, user.id, { issuedOn: issuedOn + 1 }),
        await givenCertificate(db.knex, user.id, { issuedOn }),
        await givenCertificate(db.knex, user.id, { issuedOn }),
        await givenCertificate(db.knex, user.id, { issuedOn }),
        await givenCertificate(db.knex, user.id, { issuedOn: issuedOn - 1 }),
      ];

      for (const order of ['asc', 'desc'] as const) {
        // Act
        const pages = [];
        for (let offset = 0; offset < 5; offset += 2) {
          pages.push(
            ...idsOf(await listCertificates(db.knex, { userId: user.id, offset, limit: 2, order })),
          );
        }

        // Assert
        expect(pages).toEqual(sortedIds(certificates, order));
      }
    });

    it('when filtered by access, type and issuedOn range, then only the matching certificates are listed and counted', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const publicFile = await givenCertificate(db.knex, user.id, {
        type: 'file',
        public: true,
        issuedOn: issuedOn + 1000,
      });
      const privateFile = await givenCertificate(db.knex, user.id, {
        type: 'file',
        issuedOn: issuedOn + 2000,
      });
      const publicUrl = await givenCertificate(db.knex, user.id, {
        type: 'url',
        public: true,
        issuedOn: issuedOn + 3000,
      });
      const privateContent = await givenCertificate(db.knex, user.id, {
        issuedOn: issuedOn + 4000,
      });
      const filters: [Partial<CertificateListFilter>, CertificateRecord[]][] = [
        [{ access: 'public' }, [publicUrl, publicFile]],
        [{ access: 'private' }, [privateContent, privateFile]],
        [{ type: 'file' }, [privateFile, publicFile]],
        [{ type: 'asset' }, []],
        [{ access: 'public', type: 'file' }, [publicFile]],
        [{ from: issuedOn + 2000 }, [privateContent, publicUrl, privateFile]],
        [{ to: issuedOn + 2000 }, [privateFile, publicFile]],
        [{ from: issuedOn + 2000, to: issuedOn + 3000 }, [publicUrl, privateFile]],
        [{ from: issuedOn + 2000, to: issuedOn + 3000, access: 'private' }, [privateFile]],
      ];

      for (const [filter, expected] of filters) {
        // Act
        const page = await listCertificates(db.knex, { userId: user.id, ...firstPage, ...filter });

        // Assert
        expect({ filter, ids: idsOf(page), total: page.total }).toEqual({
          filter,
          ids: expected.map((certificate) => certificate.id),
          total: expected.length,
        });
      }
    });

    it('when listed, then each certificate carries its own trustpoints, oldest first', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const older = await givenCertificate(db.knex, user.id, { issuedOn: issuedOn - 1000 });
      const newer = await givenCertificate(db.knex, user.id);
      const revocation = await addTrustpoint(db.knex, newer.id, {
        type: 1,
        hash: randomDigest(),
        timestamp: issuedOn + 1000,
        networkId: '31337',
        anchorRecordId: null,
      });

      // Act
      const page = await listCertificates(db.knex, { userId: user.id, ...firstPage });

      // Assert
      expect(page.certificates).toEqual([
        { ...newer, trustpoints: [...newer.trustpoints, revocation] },
        older,
      ]);
    });

    it('when other users have certificates, then they are never listed or counted', async () => {
      // Arrange
      const [alice, bob] = [await givenUser(db.knex), await givenUser(db.knex)];
      const alices = await givenCertificate(db.knex, alice.id, { public: true });
      await givenCertificate(db.knex, bob.id, { public: true });
      await givenCertificate(db.knex, bob.id);

      // Act
      const page = await listCertificates(db.knex, { userId: alice.id, ...firstPage });
      const publicPage = await listCertificates(db.knex, {
        userId: alice.id,
        ...firstPage,
        access: 'public',
      });

      // Assert
      expect(page).toEqual({ certificates: [alices], total: 1 });
      expect(publicPage).toEqual({ certificates: [alices], total: 1 });
    });

    it('when listing, then it runs three queries and pages in the order of a list index, without sorting', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      for (let i = 0; i < 3; i += 1) {
        await givenCertificate(db.knex, user.id, {
          type: 'file',
          public: true,
          issuedOn: issuedOn + i,
        });
      }
      const filters: Partial<CertificateListFilter>[] = [
        { order: 'desc' },
        { order: 'asc' },
        { type: 'file' },
        { access: 'public', order: 'asc' },
        { type: 'file', access: 'public' },
        { from: issuedOn, to: issuedOn + 2, offset: 1 },
      ];

      for (const filter of filters) {
        // Act
        const queries: QueryEvent[] = [];
        const capture = (query: QueryEvent) => queries.push(query);
        const plan = await db.knex.transaction(async (trx) => {
          // As on a table too big to read whole: the planner must find an index for the order.
          await trx.raw('set local enable_seqscan = off');
          db.knex.on('query', capture);
          try {
            await listCertificates(trx, { userId: user.id, ...firstPage, limit: 2, ...filter });
          } finally {
            db.knex.off('query', capture);
          }
          const page = queries.find((query) => query.sql.includes('order by "issued_on"'));
          return page === undefined ? [] : planOf(trx, page);
        });

        // Assert
        expect(queries.map((query) => query.method)).toEqual(['select', 'select', 'first']);
        expect(plan.join('\n')).toMatch(/Index Scan( Backward)? using certificates_list\w*_idx/);
        expect(plan.join('\n')).not.toMatch(/Sort/);
      }
    });

    it('when the offset or limit is not a non-negative integer, then it throws', async () => {
      // Arrange
      const user = await givenUser(db.knex);

      // Act
      const listings = [
        listCertificates(db.knex, { userId: user.id, ...firstPage, offset: -1 }),
        listCertificates(db.knex, { userId: user.id, ...firstPage, limit: 1.5 }),
      ];

      // Assert
      for (const listing of listings) await expect(listing).rejects.toThrow(RangeError);
    });
  });

  describe('updateCertificateAccess', () => {
    it('when the owner changes each access field, then the certificate is returned and stored with them', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);
      const externalId = uniqueId('external');

      // Act
      const updated = await updateCertificateAccess(db.knex, certificate.id, user.id, {
        public: true,
        pinEncrypted: 'encrypted-pin',
        externalId,
      });

      // Assert
      const expected = { ...certificate, public: true, pinEncrypted: 'encrypted-pin', externalId };
      expect(updated).toEqual(expected);
      expect(await findCertificate(db.knex, 'externalId', externalId, user.id)).toEqual(expected);
    });

    it('when a field is null, then it is removed, and fields not given are left alone', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id, {
        public: true,
        pinEncrypted: 'encrypted-pin',
        externalId: uniqueId('external'),
      });

      // Act
      const withoutPin = await updateCertificateAccess(db.knex, certificate.id, user.id, {
        pinEncrypted: null,
      });
      const withoutExternalId = await updateCertificateAccess(db.knex, certificate.id, user.id, {
        externalId: null,
      });

      // Assert
      expect(withoutPin).toEqual({ ...certificate, pinEncrypted: null });
      expect(withoutExternalId).toEqual({ ...certificate, pinEncrypted: null, externalId: null });
    });

    it('when nothing is to change, then the certificate is returned as it is', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);

      // Act
      const updated = await updateCertificateAccess(db.knex, certificate.id, user.id, {});

      // Assert
      expect(updated).toEqual(certificate);
    });

    it('when the certificate belongs to another user, then it returns undefined and changes nothing', async () => {
      // Arrange
      const [owner, other] = [await givenUser(db.knex), await givenUser(db.knex)];
      const certificate = await givenCertificate(db.knex, owner.id);

      // Act
      const updated = await updateCertificateAccess(db.knex, certificate.id, other.id, {
        public: true,
      });
      const unchanged = await updateCertificateAccess(db.knex, certificate.id, other.id, {});

      // Assert
      expect([updated, unchanged]).toEqual([undefined, undefined]);
      expect(await findCertificate(db.knex, 'certId', certificate.certId)).toEqual(certificate);
    });

    it('when the external id is already used by another of the owner’s certificates, then it is a unique violation', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const externalId = uniqueId('external');
      await givenCertificate(db.knex, user.id, { externalId });
      const certificate = await givenCertificate(db.knex, user.id);

      // Act
      const violation = await violationOf(
        updateCertificateAccess(db.knex, certificate.id, user.id, { externalId }),
      );

      // Assert
      expect(violation).toEqual({
        kind: 'unique',
        constraint: 'certificates_user_external_id_unique',
      });
    });
  });

  describe('markCertificateRevoked', () => {
    it('when revoked twice, then the first returns true, the second false, and the first time is kept', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const certificate = await givenCertificate(db.knex, user.id);

      // Act
      const first = await markCertificateRevoked(db.knex, certificate.id, issuedOn + 1000);
      const second = await markCertificateRevoked(db.knex, certificate.id, issuedOn + 2000);

      // Assert
      expect([first, second]).toEqual([true, false]);
      const found = await findCertificate(db.knex, 'certId', certificate.certId);
      expect(found?.revokedAt).toBe(issuedOn + 1000);
    });

    it('when the certificate does not exist, then it returns false', async () => {
      // Arrange
      const id = randomUUID();

      // Act
      const revoked = await markCertificateRevoked(db.knex, id, issuedOn);

      // Assert
      expect(revoked).toBe(false);
    });
  });
  describe('anchoring status', () => {
    /** A certificate whose Evidence is anchored, pending in the queue, or failed there. */
    async function givenCertificateIn(
      userId: string,
      status: 'anchored' | 'pending' | 'failed',
      issued: number,
    ): Promise<CertificateRecord> {
      const certificate = newCertificate(userId, { issuedOn: issued });
      const anchorRecordId = await givenAnchorRecord(db.knex, 0, certificate.hash);
      const stored = await insertCertificate(
        db.knex,
        certificate,
        evidenceOf(certificate, { anchorRecordId }),
      );
      if (status === 'anchored') {
        await db
          .knex('trustpoints')
          .where({ certificate_id: certificate.id })
          .update({
            smart_contract: `0x${'ab'.repeat(20)}`,
            transaction_hash: `0x${'cd'.repeat(32)}`,
          });
        await db
          .knex('anchor_records')
          .where({ id: anchorRecordId })
          .update({ status: 'anchored' });
      }
      if (status === 'failed') {
        await db
          .knex('anchor_records')
          .where({ id: anchorRecordId })
          .update({ status: 'failed', error: 'TrustPointConflict' });
      }
      return stored;
    }

    it('when trustpoints are anchored, queued or failed, then each says so, the failed one why, and the list filters by it', async () => {
      // Arrange
      const user = await givenUser(db.knex);
      const anchored = await givenCertificateIn(user.id, 'anchored', issuedOn + 3);
      const pending = await givenCertificateIn(user.id, 'pending', issuedOn + 2);
      const failed = await givenCertificateIn(user.id, 'failed', issuedOn + 1);
      const page = (status?: 'anchored' | 'pending' | 'failed') =>
        listCertificates(db.knex, {
          userId: user.id,
          ...(status === undefined ? {} : { status }),
          offset: 0,
          limit: 10,
          order: 'desc',
        });

      // Act
      const all = await page();
      const byStatus = {
        anchored: await page('anchored'),
        pending: await page('pending'),
        failed: await page('failed'),
      };

      // Assert
      expect(all.certificates.map((certificate) => certificate.trustpoints[0]?.status)).toEqual([
        'anchored',
        'pending',
        'failed',
      ]);
      expect(all.certificates[2]?.trustpoints[0]?.failure).toBe('TrustPointConflict');
      expect(all.certificates[0]?.trustpoints[0]).not.toHaveProperty('failure');
      expect(idsOf(byStatus.anchored)).toEqual([anchored.id]);
      expect(idsOf(byStatus.pending)).toEqual([pending.id]);
      expect(idsOf(byStatus.failed)).toEqual([failed.id]);
      expect([byStatus.anchored.total, byStatus.pending.total, byStatus.failed.total]).toEqual([
        1, 1, 1,
      ]);
      expect(
        (await findCertificate(db.knex, 'certId', failed.certId))?.trustpoints[0],
      ).toMatchObject({ status: 'failed', failure: 'TrustPointConflict' });
    });
  });
});
