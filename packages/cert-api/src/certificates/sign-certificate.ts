import {
  findCertificate,
  recordAudit,
  spendCredit,
  type CertificateRecord,
  type IdempotencyClaim,
  type TrustpointRecord,
  type User,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { commitIdempotentChange } from '@trustpoint/http';
import { certificateAudit } from './certificate-audit.js';
import type { CertificateServices } from './certificate-services.js';
import { getOwnCertificate } from './get-certificate.js';
import { lockedCertificate, nextTrustpointTimestamp } from './next-trustpoint.js';
import { addSignatureTrustpoint, qualifiedSignature } from './qualified-signature.js';

export interface SignedCertificateResult {
  certificate: CertificateRecord;
  /** False when the certificate already had its signature and it was returned as it was. */
  created: boolean;
}

/** The catalogue has no entry for a revoked certificate: it is a request that cannot be met. */
function revokedError(certId: string): DomainError {
  return new DomainError('validation', {
    detail: `certificate ${certId} is revoked`,
    errors: [{ field: 'path.id', error: 'A revoked certificate cannot be signed' }],
  });
}

function signatureOf(record: CertificateRecord): TrustpointRecord | undefined {
  return record.trustpoints.find((trustpoint) => trustpoint.type === 2);
}

/** Waits for a Signature trustpoint still on its way to the chain (a retry after a 503). */
async function untilAnchored(
  services: CertificateServices,
  trustpoint: TrustpointRecord,
): Promise<void> {
  if (trustpoint.transactionHash === null && trustpoint.anchorRecordId !== null) {
    await services.engine.waitForAnchor(trustpoint.anchorRecordId);
  }
}

async function reread(services: CertificateServices, certId: string): Promise<CertificateRecord> {
  const record = await findCertificate(services.knex, 'certId', certId);
  if (!record) throw new Error(`certificate ${certId} vanished while being signed`);
  return record;
}

/**
 * The issuer, if qualified, has the service sign one of their certificates: a JWS by the
 * service key, stored with a Signature trustpoint (`doubleHash(jws)`) at a timestamp after every
 * earlier trustpoint, for one credit; the answer comes once it is mined.
 *
 * A certificate has at most one signature: asking again returns it without spending a credit.
 * The certificate row is locked while the signature is decided, so concurrent requests (or a
 * concurrent revocation) are settled one at a time. If the chain does not mine the trustpoint in
 * time the request fails with 503, like a revocation: the signature stands and is anchored once
 * the chain is back, and asking again returns it (no second credit).
 */
export async function signCertificate(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
  networkId: string,
  requestId: string | null = null,
  /** The request's `Idempotency-Key`, committed with the signature (naming the certID). */
  idempotency?: IdempotencyClaim,
): Promise<SignedCertificateResult> {
  const { knex, engine } = services;
  if (!owner.qualified) throw new DomainError('userNotQualified');
  const found = await getOwnCertificate(services, owner, lookupName, value);
  const existing = signatureOf(found);
  if (existing) {
    await untilAnchored(services, existing);
    return { certificate: await reread(services, found.certId), created: false };
  }
  if (found.revokedAt !== null) throw revokedError(found.certId);
  services.networks.requireForUser(networkId, owner.planNetworkIds, 'query.networkId');

  // Past the network's queue limit, 503 before anything is stored (nor any credit spent).
  const admission = await engine.admit(networkId, 1);
  const storing = () =>
    knex.transaction(async (trx) => {
      // Read again under the lock: another request may have signed or revoked it meanwhile.
      const record = await lockedCertificate(trx, found);
      if (!record) throw new DomainError('notFound');
      const signed = signatureOf(record);
      if (signed) return { existing: signed };
      if (record.revokedAt !== null) throw revokedError(record.certId);
      if (!(await spendCredit(trx, owner.id))) throw new DomainError('outOfCredits');
      await commitIdempotentChange(trx, idempotency, record.certId);
      const timestamp = nextTrustpointTimestamp(record, services.now());
      const { recordId } = await addSignatureTrustpoint(
        trx,
        engine,
        { certificateId: record.id, certId: record.certId, networkId, timestamp },
        await qualifiedSignature(services.signer, record, timestamp),
        owner.id,
      );
      await recordAudit(trx, [
        certificateAudit(owner, requestId, 'certificate.sign', record.certId, {
          networkId,
          timestamp,
        }),
      ]);
      return { queued: recordId };
    });
  const outcome = await admission.during(storing);

  if (outcome.existing !== undefined) {
    await untilAnchored(services, outcome.existing);
    return { certificate: await reread(services, found.certId), created: false };
  }
  await engine.waitForAnchor(outcome.queued);
  services.logger.debug({ reqId: requestId, certId: found.certId }, 'certificate signed');
  return { certificate: await reread(services, found.certId), created: true };
}
