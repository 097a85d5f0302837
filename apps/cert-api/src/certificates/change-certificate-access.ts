import {
  constraintViolation,
  updateCertificateAccess,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import { DomainError, type CertificateAccessChangesBody } from '@trustpoint/domain';
import type { CertificateServices } from './certificate-services.js';
import { getOwnCertificate } from './get-certificate.js';

/** Changes who may read a certificate: public flag, PIN (sealed), externalId; null removes. */
export async function changeCertificateAccess(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
  changes: CertificateAccessChangesBody,
): Promise<CertificateRecord> {
  const record = await getOwnCertificate(services, owner, lookupName, value);
  const { certificatePin } = changes;
  try {
    const updated = await updateCertificateAccess(services.knex, record.id, owner.id, {
      ...(changes.public === undefined ? {} : { public: changes.public }),
      ...(certificatePin === undefined
        ? {}
        : { pinEncrypted: certificatePin === null ? null : services.pins.encrypt(certificatePin) }),
      ...(changes.externalId === undefined ? {} : { externalId: changes.externalId }),
    });
    if (!updated) throw new DomainError('notFound');
    return updated;
  } catch (error) {
    const violation = constraintViolation(error);
    if (violation?.constraint === 'certificates_user_external_id_unique') {
      throw new DomainError('externalIdAlreadyRegistered', { cause: error });
    }
    throw error;
  }
}
