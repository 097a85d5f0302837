import {
  certIdSchema,
  epochMillisSchema,
  evmAddressSchema,
  evmTransactionHashSchema,
  explorerVerificationSchema,
  hashHexSchema,
  networkIdSchema,
  trustPointTypeNameSchema,
} from '@trustpoint/domain';
import { z } from 'zod';
import type { CertificateVerification } from '../certificates/verify-certificate.js';

const trustpointVerificationSchema = z
  .object({
    type: trustPointTypeNameSchema,
    networkId: networkIdSchema,
    smartContract: evmAddressSchema.nullable(),
    transactionHash: evmTransactionHashSchema.nullable(),
    timestamp: epochMillisSchema,
    trustPointHash: hashHexSchema,
    onChain: z.object({ hash: hashHexSchema, type: trustPointTypeNameSchema }).nullable().meta({
      description: 'What `getTrustPoint(certID, timestamp)` returned; null when not read',
    }),
    hashMatches: z.boolean(),
    typeMatches: z.boolean(),
    signatureValid: z
      .boolean()
      .optional()
      .meta({
        description:
          'Signature trustpoints: the stored JWS verifies with the service key, signs this ' +
          'certificate at this timestamp and double-hashes to `trustPointHash`',
      }),
    status: z.enum(['match', 'mismatch', 'notFound', 'unreachable', 'pending']).meta({
      description:
        '`pending`: not anchored yet, so not read; `unreachable`: the network did not answer',
    }),
    explorer: explorerVerificationSchema.nullable().meta({
      description:
        "Verification method 2 by hand: the transaction and the contract's read page on the " +
        "network's block explorer, the function `getTrustPoint`, the values to type in its " +
        'fields and what it must return. Null when the network has no explorer URL or the ' +
        'trustpoint is not anchored yet',
    }),
  })
  .meta({ id: 'TrustpointVerification' });

/**
 * `data` of GET /trustpoints/{type}/{id} (verification method 1). verifyCertificate returns a
 * TypeScript type, not a parsed value, so this schema exists for the document; the checks below
 * make the compiler report any drift between the two.
 */
export const certificateVerificationSchema = z
  .object({
    certID: certIdSchema(),
    verified: z.boolean().meta({
      description: 'Every trustpoint is on chain with the recorded hash and type',
    }),
    revoked: z.boolean(),
    revokedAt: epochMillisSchema.optional(),
    trustpoints: z.array(trustpointVerificationSchema),
  })
  .meta({ id: 'CertificateVerification' });

/** Strict type identity: unlike mutual assignability it also tells an optional member apart. */
/* eslint-disable @typescript-eslint/no-unnecessary-type-parameters -- the deferred generic is the trick */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/* eslint-enable @typescript-eslint/no-unnecessary-type-parameters */
/** Fails to compile when a field is added, removed or retyped on one side only. */
export type VerificationSchemaMatchesResult =
  Same<z.infer<typeof certificateVerificationSchema>, CertificateVerification> extends true
    ? true
    : never;
export const verificationSchemaMatchesResult: VerificationSchemaMatchesResult = true;
