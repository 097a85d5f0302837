import { z } from 'zod';

import { certIdSchema } from '../ids/cert-id.js';
import { userDidSchema } from '../ids/user-did.js';
import { trustPointTypeNameSchema } from '../trustpoint/trustpoint-type.js';
import { certificateTypeSchema } from './certificate-type.js';
import { epochMillisSchema } from './epoch-time.js';
import { evmAddressSchema } from './evm-address.js';
import { evmTransactionHashSchema } from './evm-transaction-hash.js';
import { hashHexSchema } from './hash-hex.js';
import { jsonObjectSchema } from './json-object.js';
import { networkIdSchema } from './network-id.js';

/** Certificate resource (CertModel, spec 2.2). */

export const certificateDataSchema = z.object({
  name: z.string(),
  description: z.string(),
  type: certificateTypeSchema,
  content: jsonObjectSchema,
  issuer: userDidSchema,
  issuedOn: epochMillisSchema,
  /** The certificate hash of its type's rule; also the Evidence trustpoint hash. */
  hash: hashHexSchema,
  expires: epochMillisSchema.optional(),
  /** File certificates only: `sha256(file bytes)`, what `sha256sum` prints. */
  fileHash: hashHexSchema.optional(),
});
export type CertificateData = z.infer<typeof certificateDataSchema>;

/** One trustpoint of a certificate: where and when it was anchored, and what was stored. */
export const certificateMetadataItemSchema = z.object({
  type: trustPointTypeNameSchema,
  networkId: networkIdSchema,
  smartContract: evmAddressSchema,
  transactionHash: evmTransactionHashSchema,
  /** What `getTrustPoint(certID, timestamp)` returns as `hash`. */
  trustPointHash: hashHexSchema,
  /** Milliseconds; half of the on-chain key. */
  timestamp: epochMillisSchema,
});
export type CertificateMetadataItem = z.infer<typeof certificateMetadataItemSchema>;

export const certificateAccessSchema = z.object({
  public: z.boolean(),
  /** Returned only in encrypted form. */
  certificatePin: z.string().optional(),
  externalId: z.string().optional(),
});
export type CertificateAccess = z.infer<typeof certificateAccessSchema>;

export const certificateSchema = z.object({
  certID: certIdSchema(),
  data: certificateDataSchema,
  metadata: z.array(certificateMetadataItemSchema),
  access: certificateAccessSchema,
});
export type Certificate = z.infer<typeof certificateSchema>;
