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
import { CERTIFICATE_VERDICT_PRECEDENCE } from '@trustpoint/verifier';
import { z } from 'zod';
import type { CertificateVerification } from '../certificates/verify-certificate.js';

const verdictSchema = z.enum(CERTIFICATE_VERDICT_PRECEDENCE).meta({
  id: 'CertificateVerdict',
  description:
    'The verdict every Trustpoint verifier gives (the CLI, the SDK, both pages), the first that ' +
    'applies: `mismatch` (a hash differs from the rules or the chain), `notFound` (a trustpoint ' +
    'is not on chain or not anchored yet), `unchecked` (no node answered, the chain could not ' +
    'date a record, a signature could not be checked), `untrusted` (in a registry the trust does ' +
    'not pin), `issuerUntrusted` (valid in a trusted registry, but the certificate names an ' +
    'issuing origin that is not trusted, or one that does not publish that registry: the ' +
    'service trusts its own origin only), `revoked` (a revocation proven on chain), ' +
    '`revocationUnchecked` (no status ' +
    'registry could be read for a network holding it), `expired`, `verified`',
});

const revocationSchema = z
  .object({
    networkId: networkIdSchema,
    timestamp: epochMillisSchema.meta({ description: "The Revocation trustpoint's timestamp" }),
    recordedAt: epochMillisSchema.meta({
      description: 'When the chain recorded it: the time of its block',
    }),
  })
  .meta({ id: 'ProvenRevocation' });

const revocationStatusSchema = z
  .object({
    networkId: networkIdSchema,
    outcome: z.enum(['notRevoked', 'revoked', 'unchecked']),
    statusRegistry: evmAddressSchema.optional(),
    revocation: z
      .object({ timestamp: epochMillisSchema, recordedAt: epochMillisSchema })
      .optional(),
    detail: z.string(),
  })
  .meta({
    id: 'RevocationStatus',
    description:
      "A network's answer to `revocationOf(certID)` of its status registry: the revocation " +
      'status read from the certID alone, so a copy saved before its revocation finds it',
  });

const issuerSchema = z
  .object({
    account: z.string().meta({ description: '`data.issuer`: the issuing account, `did:user:...`' }),
    covered: z.boolean().meta({
      description:
        'The anchored hash covers the account and origin (version 2); version 1 shows them as claims',
    }),
    origin: z
      .string()
      .optional()
      .meta({
        description:
          '`data.issuerOrigin` normalised (scheme, lowercase host in punycode, port); absent when ' +
          'the certificate names none, and registry trust alone decides',
      }),
    given: z.string().optional().meta({
      description: '`data.issuerOrigin` as written, when that is not its normalised form',
    }),
    originTrusted: z.boolean().optional().meta({
      description: 'Whether the origin is trusted: the service trusts its own origin only',
    }),
    registry: z
      .object({
        outcome: z.enum(['listed', 'notListed', 'notRead']),
        document: z.enum(['pinned', 'published']).optional(),
        detail: z.string(),
      })
      .optional()
      .meta({
        description:
          "Whether the origin's trust document lists the registry of each Evidence. The service " +
          "reads no other origin's document (`notRead`)",
      }),
    outcome: z.enum(['noOrigin', 'trusted', 'untrusted']).meta({
      description:
        '`noOrigin`: the certificate names no issuing origin; `trusted`: a trusted origin that ' +
        'publishes the registry it is recorded in; `untrusted`: otherwise (verdict ' +
        '`issuerUntrusted` at best)',
    }),
    detail: z.string(),
    identity: z
      .object({
        domain: z.string(),
        recordName: z.string().meta({ description: 'Where its record is: `_trustpoint.<domain>`' }),
        outcome: z.enum(['proven', 'unproven', 'unchecked']),
        records: z.array(z.string()).optional(),
        detail: z.string(),
      })
      .optional()
      .meta({
        id: 'IssuerIdentity',
        description:
          'The domain the certificate names as its issuer (`data.issuerDomain`), looked up in the ' +
          'DNS by the service: `proven` only when `_trustpoint.<domain>` has a TXT record naming ' +
          "this origin and this account; otherwise the domain and the certificate's names are " +
          "the issuer's claims. Shown, never a verdict",
      }),
  })
  .meta({
    id: 'CertificateIssuer',
    description:
      'Who issued the certificate: the account, and the origin it names (the operator of a ' +
      'registry is not the issuer of every record in it)',
  });

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

const expirySchema = z.object({
  expires: epochMillisSchema,
  expired: z.boolean(),
  judgedAt: epochMillisSchema.meta({
    description:
      "The time the expiry was judged at: the later of the service's clock and the chain's latest block",
  }),
  chainTime: epochMillisSchema.optional().meta({
    description:
      'The latest block time of the nodes that answered for the records, when one told it',
  }),
});

export const certificateVerificationSchema = z
  .object({
    certID: certIdSchema(),
    verified: z.boolean().meta({
      description:
        'The verdict is `verified`: every trustpoint is on chain with the recorded hash and ' +
        'type, and the certificate is neither revoked nor expired',
    }),
    revoked: z.boolean(),
    revokedAt: epochMillisSchema.optional(),
    trustpoints: z.array(trustpointVerificationSchema),
    verdict: verdictSchema,
    revocation: revocationSchema.optional(),
    status: z.array(revocationStatusSchema),
    expiry: expirySchema.optional(),
    issuer: issuerSchema,
  })
  .meta({ id: 'CertificateVerification' });

/** `data` of POST /trustpoints/verification: a holder's copy through the verifier. */
export const postedCertificateVerificationSchema = z
  .object({
    certID: z.string(),
    verified: z.boolean().meta({ description: 'The verdict is `verified`' }),
    revoked: z.boolean(),
    verdict: verdictSchema,
    revocation: revocationSchema.optional(),
    status: z.array(revocationStatusSchema),
    expiry: expirySchema.optional(),
    issuer: issuerSchema,
    hash: z
      .object({
        given: z.string(),
        recomputed: z.string().optional(),
        matches: z.boolean(),
        detail: z.string(),
      })
      .loose()
      .meta({ description: '`data.hash` as given, recomputed by the rules when it can be' }),
    trustpoints: z.array(
      z
        .object({
          type: trustPointTypeNameSchema,
          networkId: z.number().int(),
          timestamp: z.number().int(),
          smartContract: z.string().optional(),
          transactionHash: z.string().optional(),
          trustPointHash: z.string(),
          expectedHash: z.string(),
          onChain: z.object({ hash: z.string(), type: trustPointTypeNameSchema }).optional(),
          chainTime: z
            .object({ blockNumber: z.number().int(), blockHash: z.string(), timestamp: z.number() })
            .optional()
            .meta({ description: 'The block of the transaction that wrote the record' }),
          verdict: z.string(),
          detail: z.string(),
        })
        .meta({ id: 'PostedTrustpointVerification' }),
    ),
  })
  .meta({ id: 'PostedCertificateVerification' });

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
