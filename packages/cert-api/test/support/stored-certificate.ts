import { createHash } from 'node:crypto';
import { insertCertificate } from '@trustpoint/db';
import type { AnchorEngine } from '@trustpoint/chain';
import {
  contentCertificateHash,
  newCertId,
  newUuidV7,
  trustPointKey,
  type JsonObject,
} from '@trustpoint/domain';
import type { Knex } from 'knex';
import type { CreatedCertificate } from './cert-api-fixture.js';

/**
 * A certificate stored straight into the database as if anchored a minute ago, for tests whose
 * chain cannot mine: later trustpoints (signature, revocation) then have something to attach to.
 */
export async function storedCertificate(knex: Knex, userId: string): Promise<CreatedCertificate> {
  const issuedOn = Date.now() - 60_000;
  const certId = newCertId('trustpoint');
  const hash = createHash('sha256').update(certId).digest('hex');
  await insertCertificate(
    knex,
    {
      id: newUuidV7(),
      certId,
      userId,
      type: 'content',
      name: 'Earlier',
      description: '',
      content: {},
      hash,
      fileHash: null,
      issuedOn,
      expires: null,
      public: false,
      pinEncrypted: null,
      externalId: null,
      networkId: '31337',
    },
    { type: 0, hash, timestamp: issuedOn, networkId: '31337', anchorRecordId: null },
  );
  return { certID: certId, data: { hash }, access: {} };
}

/**
 * A content certificate made as the service made them before hash version 2 (no `hashVersion`:
 * `data.hash = doubleHash(JCS(content))`), its Evidence queued and mined on the fixture's chain.
 * Returns its certID.
 */
export async function anchoredVersion1Certificate(
  knex: Knex,
  engine: AnchorEngine,
  userId: string,
  content: JsonObject,
): Promise<string> {
  const issuedOn = Date.now() - 60_000;
  const certId = newCertId('trustpoint');
  const hash = contentCertificateHash(content);
  const recordId = await knex.transaction(async (trx) => {
    const queued = await engine.enqueue(trx, {
      networkId: '31337',
      kind: 'trustpoint',
      recordKey: trustPointKey(certId, issuedOn),
      hash,
      timestamp: issuedOn,
      trustPointType: 0,
    });
    await insertCertificate(
      trx,
      {
        id: newUuidV7(),
        certId,
        userId,
        type: 'content',
        name: 'Diploma',
        description: 'Made under version 1',
        content,
        hash,
        fileHash: null,
        issuedOn,
        expires: null,
        public: false,
        pinEncrypted: null,
        externalId: null,
        networkId: '31337',
      },
      { type: 0, hash, timestamp: issuedOn, networkId: '31337', anchorRecordId: queued },
    );
    return queued;
  });
  await engine.waitForAnchor(recordId);
  return certId;
}
