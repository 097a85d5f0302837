import { z } from 'zod';

import {
  certificateAccessSchema,
  certificateDataSchema,
  certificateSchema,
} from './certificate.js';

/**
 * A certificate as GET /certificates lists it. Without `?fields=` it is a whole Certificate;
 * with it, only the fields named: a top-level member whole, or single members of `data` and
 * `access`. A named member the certificate lacks (e.g. `data.expires`) is left out, and so is a
 * `data` or `access` none of whose named members it has. Hence every member is optional here.
 */
export const certificateFieldsSchema = z
  .object({
    certID: certificateSchema.shape.certID.optional(),
    data: certificateDataSchema
      .partial()
      .meta({
        id: 'CertificateDataFields',
        description: 'The members of CertificateData named by `fields` (all of them for `data`)',
      })
      .optional(),
    metadata: certificateSchema.shape.metadata.optional(),
    access: certificateAccessSchema
      .partial()
      .meta({
        id: 'CertificateAccessFields',
        description:
          'The members of CertificateAccess named by `fields` (all of them for `access`)',
      })
      .optional(),
    status: certificateSchema.shape.status.optional(),
  })
  .meta({
    id: 'CertificateFields',
    description:
      'A listed certificate. Without `fields`, a whole Certificate (every member Certificate ' +
      'requires is present). With `fields`, only the fields named: `certID`, `data`, `metadata` ' +
      '`access` or `status` whole, or single members such as `data.name` or `access.public`; a named ' +
      'member the certificate does not have (e.g. `data.expires`) is left out.',
  });
export type CertificateFields = z.infer<typeof certificateFieldsSchema>;
