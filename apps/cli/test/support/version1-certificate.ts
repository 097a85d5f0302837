import { randomUUID } from 'node:crypto';
import { insertCertificate } from '@trustpoint/db';
import { contentCertificateHash, trustPointKey, type JsonObject } from '@trustpoint/verifier';
import type { RunningService } from './cli-fixture.js';

/** The user `service.running.token` is for (the launcher's local administrator). */
export const LOCAL_USER_ID = 'local-admin';

/**
 * A content certificate as the service made them before hash version 2 (no `hashVersion`:
 * `data.hash = doubleHash(JCS(content))`), of the local user, its Evidence queued and mined on
 * the service's chain. Returns its certID; read it from the API.
 */
export async function anchoredVersion1Certificate(
  service: RunningService,
  content: JsonObject,
): Promise<string> {
  const { knex } = service.running.database;
  const { engine } = service.running;
  const issuedOn = Date.now() - 60_000;
  const certId = `did:trustpoint:certid:${randomUUID()}`;
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
        id: randomUUID(),
        certId,
        userId: LOCAL_USER_ID,
        type: 'content',
        name: 'Diploma',
        description: 'Made under version 1',
        content,
        hash,
        fileHash: null,
        issuedOn,
        expires: null,
        public: true,
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
