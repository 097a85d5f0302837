import { listCertificates } from '@trustpoint/db';
import type {
  Certificate,
  CertificateFields,
  CertificateListQuery,
  CertificatePage,
} from '@trustpoint/domain';
import type { CertificateServices } from './certificate-services.js';
import { certificateView } from './certificate-view.js';

/** A certificate with only the requested fields: whole parts, or single members of data/access. */
export function pickFields(certificate: Certificate, fields: readonly string[]): CertificateFields {
  const picked: Record<string, unknown> = {};
  for (const field of fields) {
    const [part, member] = field.split('.') as [keyof Certificate, string | undefined];
    const value: unknown = certificate[part];
    if (member === undefined) {
      picked[part] = value;
    } else if (typeof value === 'object' && value !== null && member in value) {
      const existing = (picked[part] ?? {}) as Record<string, unknown>;
      picked[part] = { ...existing, [member]: (value as Record<string, unknown>)[member] };
    }
  }
  return picked;
}

/** A page of the caller's certificates, newest first unless asked otherwise (spec 4.2). */
export async function listUserCertificates(
  services: CertificateServices,
  userId: string,
  query: CertificateListQuery,
): Promise<CertificatePage> {
  const { certificates, total } = await listCertificates(services.knex, {
    userId,
    ...(query.access === undefined ? {} : { access: query.access }),
    ...(query.type === undefined ? {} : { type: query.type }),
    ...(query.from === undefined ? {} : { from: query.from }),
    ...(query.to === undefined ? {} : { to: query.to }),
    ...(query.status === undefined ? {} : { status: query.status }),
    offset: query.offset,
    limit: query.limit,
    order: query.order,
  });
  const views = certificates.map(certificateView);
  return {
    certificates: query.fields ? views.map((view) => pickFields(view, query.fields ?? [])) : views,
    pagination: { offset: query.offset, limit: query.limit, total, order: query.order },
  };
}
