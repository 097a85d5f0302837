import {
  findCertificate,
  type CertificateLookup,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import { DomainError, isHashHex } from '@trustpoint/domain';
import type { CertificateServices } from './certificate-services.js';
import { checkPin, type PinAttempt } from './check-pin.js';

/** Path names of GET /certificates/{type}/{id}, and what each looks up. */
export const CERTIFICATE_LOOKUPS: Record<string, CertificateLookup> = {
  certID: 'certId',
  externalId: 'externalId',
  fileHash: 'fileHash',
  hash: 'hash',
};

/**
 * One certificate, as its reader may see it. By certID anyone may read a public certificate (with
 * its PIN when it has one) and the issuer any of theirs; the other lookups search the caller's own
 * certificates. A certificate the caller may not see is reported as not found, so that private
 * certificates cannot be probed for.
 */
function lookupOf(lookupName: string, value: string): CertificateLookup {
  const lookup = CERTIFICATE_LOOKUPS[lookupName];
  if (!lookup) {
    throw new DomainError('validation', {
      errors: [{ field: 'path.type', error: 'Expected one of certID, externalId, fileHash, hash' }],
    });
  }
  // A hash is 64 lowercase hex characters, as every hash the APIs show and take (`/files/{fileHash}`,
  // `/evidences/{id}`): anything else is a 400, not a certificate that is not found.
  if ((lookup === 'hash' || lookup === 'fileHash') && !isHashHex(value)) {
    throw new DomainError('validation', {
      errors: [
        { field: 'path.id', error: 'Expected 64 lowercase hexadecimal characters without 0x' },
      ],
    });
  }
  return lookup;
}

/** One of the caller's own certificates, for the operations only its issuer may perform. */
export async function getOwnCertificate(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
): Promise<CertificateRecord> {
  const record = await findCertificate(services.knex, lookupOf(lookupName, value), value, owner.id);
  if (!record || record.userId !== owner.id) throw new DomainError('notFound');
  return record;
}

/** Its issuer never needs the PIN, so failed attempts by others can never lock the issuer out. */
export async function getCertificate(
  services: CertificateServices,
  reader: User | undefined,
  lookupName: string,
  value: string,
  pinAttempt: PinAttempt,
): Promise<CertificateRecord> {
  const lookup = lookupOf(lookupName, value);
  if (lookup !== 'certId' && !reader) throw new DomainError('missingToken');
  const record = await findCertificate(services.knex, lookup, value, reader?.id);
  if (!record) throw new DomainError('notFound');
  if (reader?.id === record.userId) return record;
  if (!record.public) throw new DomainError('notFound');
  const { pinEncrypted } = record;
  if (pinEncrypted !== null) await checkPin(services, { ...record, pinEncrypted }, pinAttempt);
  return record;
}
