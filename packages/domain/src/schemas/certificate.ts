import { z } from 'zod';

import { certIdSchema } from '../ids/cert-id.js';
import { userDidSchema } from '../ids/user-did.js';
import { trustPointTypeNameSchema } from '../trustpoint/trustpoint-type.js';
import { anchoringStatusSchema } from './anchoring-status.js';
import { certificateTypeSchema } from './certificate-type.js';
import { epochMillisSchema } from './epoch-time.js';
import { evmAddressSchema } from './evm-address.js';
import { evmTransactionHashSchema } from './evm-transaction-hash.js';
import { hashHexSchema } from './hash-hex.js';
import { jsonObjectSchema } from './json-object.js';
import { networkIdSchema } from './network-id.js';

/** Certificate resource (CertModel, spec 2.2). */

/** What a certificate looks like, for API documents. */
export const CERTIFICATE_EXAMPLE = {
  certID: 'did:trustpoint:certid:019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
  data: {
    name: 'Purchase order 4711',
    description: 'Order confirmed by the supplier',
    type: 'content',
    content: { orderId: 4711, total: '1250.00 EUR' },
    issuer: 'did:user:auth0%7C4242',
    issuedOn: 1767225600000,
    hash: '5d41402abc4b2a76b9719d911017c592a3f1e2b7c6d5e4f3a2b1c0d9e8f7a6b5',
  },
  metadata: [
    {
      type: 'Evidence',
      networkId: 31337,
      smartContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      transactionHash: '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
      trustPointHash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      timestamp: 1767225601234,
      status: 'anchored',
    },
  ],
  access: { public: false, externalId: 'po-4711' },
  status: 'anchored',
} as const;

export const certificateDataSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    type: certificateTypeSchema,
    content: jsonObjectSchema,
    issuer: userDidSchema,
    issuedOn: epochMillisSchema,
    /**
     * The certificate hash, also the Evidence trustpoint hash: version 1 (no `hashVersion`) by its
     * type's rule over the content or the file only; version 2 over every shown field.
     */
    hash: hashHexSchema,
    expires: epochMillisSchema.optional(),
    /** File (and version 2 URL) certificates: `sha256(bytes)`, what `sha256sum` prints. */
    fileHash: hashHexSchema.optional(),
    /** `2`: `hash` covers every shown field (issue #24); absent: version 1. */
    hashVersion: z.literal(2).optional(),
    /** Version 2: the https origin of the issuing service, covered by the hash. */
    issuerOrigin: z.string().optional(),
    /**
     * Version 2: the domain its issuing account had proven with a DNS TXT record
     * (`_trustpoint.<domain>` naming the origin and the account), covered by the hash: a claim a
     * verifier checks against the DNS itself.
     */
    issuerDomain: z.string().optional(),
    /** Version 2: what the hash is recomputed from; the disclosures hold the salts. */
    selectiveDisclosure: z
      .object({
        /** The content as the hash covers it: RFC 9901 `_sd` digests and `{"...": digest}` elements. */
        content: jsonObjectSchema,
        /** One per field this copy reveals (base64url of `[salt, name, value]` or `[salt, value]`). */
        disclosures: z.array(z.string()),
      })
      .optional(),
  })
  .meta({ id: 'CertificateData' });
export type CertificateData = z.infer<typeof certificateDataSchema>;

/** One trustpoint of a certificate: where and when it was anchored, and what was stored. */
export const certificateMetadataItemSchema = z
  .object({
    type: trustPointTypeNameSchema,
    networkId: networkIdSchema,
    status: anchoringStatusSchema,
    /** Once anchored: the registry where `getTrustPoint` answers for it. */
    smartContract: evmAddressSchema.optional(),
    /** Once anchored: the transaction that recorded it. */
    transactionHash: evmTransactionHashSchema.optional(),
    /** What `getTrustPoint(certID, timestamp)` returns as `hash`. */
    trustPointHash: hashHexSchema,
    /** Milliseconds; half of the on-chain key. */
    timestamp: epochMillisSchema,
    /** Signature trustpoints only: the compact JWS whose double hash is `trustPointHash`. */
    signature: z.string().optional(),
    /** Failed trustpoints only: why it can never be anchored. */
    failure: z.string().optional(),
  })
  .meta({
    id: 'Trustpoint',
    description:
      'One trustpoint of the certificate. Anchored ones carry their transactionHash and are ' +
      'exactly what getTrustPoint(certID, timestamp) returns; pending ones are on their way.',
  });
export type CertificateMetadataItem = z.infer<typeof certificateMetadataItemSchema>;

export const certificateAccessSchema = z
  .object({
    public: z.boolean(),
    /** Returned only in encrypted form. */
    certificatePin: z.string().optional(),
    externalId: z.string().optional(),
  })
  .meta({ id: 'CertificateAccess' });
export type CertificateAccess = z.infer<typeof certificateAccessSchema>;

export const certificateSchema = z
  .object({
    certID: certIdSchema(),
    data: certificateDataSchema,
    metadata: z.array(certificateMetadataItemSchema),
    access: certificateAccessSchema,
    /** The least settled of its trustpoints: failed, else pending, else anchored. */
    status: anchoringStatusSchema,
  })
  .meta({ id: 'Certificate', example: CERTIFICATE_EXAMPLE });
export type Certificate = z.infer<typeof certificateSchema>;
