import {
  constraintViolation,
  recordAudit,
  updateCertificateAccess,
  type CertificateRecord,
  type User,
} from '@trustpoint/db';
import { DomainError, type CertificateAccessChangesBody } from '@trustpoint/domain';
import { certificateAudit } from './certificate-audit.js';
import type { CertificateServices } from './certificate-services.js';
import { getOwnCertificate } from './get-certificate.js';

/**
 * Changes who may read a certificate: public flag, PIN (sealed), externalId; null removes. The
 * audit entry says what changed, a PIN only as set or removed.
 */
export async function changeCertificateAccess(
  services: CertificateServices,
  owner: User,
  lookupName: string,
  value: string,
  changes: CertificateAccessChangesBody,
  requestId: string | null = null,
): Promise<CertificateRecord> {
  const record = await getOwnCertificate(services, owner, lookupName, value);
  const { certificatePin } = changes;
  try {
    return await services.knex.transaction(async (trx) => {
      const updated = await updateCertificateAccess(trx, record.id, owner.id, {
        ...(changes.public === undefined ? {} : { public: changes.public }),
        ...(certificatePin === undefined
          ? {}
          : {
              pinEncrypted: certificatePin === null ? null : services.pins.encrypt(certificatePin),
            }),
        ...(changes.externalId === undefined ? {} : { externalId: changes.externalId }),
      });
      if (!updated) throw new DomainError('notFound');
      await recordAudit(trx, [
        certificateAudit(owner, requestId, 'certificate.access', record.certId, {
          ...(changes.public === undefined ? {} : { public: changes.public }),
          ...(certificatePin === undefined
            ? {}
            : { pin: certificatePin === null ? 'removed' : 'set' }),
          ...(changes.externalId === undefined ? {} : { externalId: changes.externalId }),
        }),
      ]);
      return updated;
    });
  } catch (error) {
    const violation = constraintViolation(error);
    if (violation?.constraint === 'certificates_user_external_id_unique') {
      throw new DomainError('externalIdAlreadyRegistered', { cause: error });
    }
    throw error;
  }
}
