import { createHash } from 'node:crypto';
import { insertCertificate } from '@trustpoint/db';
import { newCertId, newUuidV7 } from '@trustpoint/domain';
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
