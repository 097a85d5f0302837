import {
  explorerVerificationSchema,
  hashHexSchema,
  trackIdSchema,
  userDidSchema,
} from '@trustpoint/domain';
import { z } from 'zod';

/** Response schemas of the tracking API's own payloads (the spec leaves them open). */

export const assetSharesSchema = z
  .object({
    trackID: trackIdSchema(),
    sharedWith: z
      .array(userDidSchema)
      .meta({ description: 'Users who may read the asset and add evidences to it' }),
  })
  .meta({ id: 'AssetShares' });

export const evidenceVerificationSchema = z
  .object({
    trackID: trackIdSchema(),
    assetHash: hashHexSchema,
    networkId: z.number().int().positive(),
    smartContract: z.string().nullable(),
    transactionHash: z.string().nullable(),
    timestamp: z.number().int().nonnegative().meta({ description: 'Seconds since the epoch' }),
    userOwner: userDidSchema,
    hash: hashHexSchema,
    onChain: z
      .object({ hash: hashHexSchema })
      .nullable()
      .meta({ description: 'What getEvidence(assetHash, timestamp) returned, when found' }),
    hashMatches: z.boolean(),
    status: z.enum(['match', 'mismatch', 'notFound', 'unreachable', 'pending']).meta({
      description:
        'match: on chain with this hash; mismatch: on chain with another hash; notFound: the ' +
        'key is not on chain; unreachable: the node did not answer; pending: not anchored yet',
    }),
    explorer: explorerVerificationSchema.nullable().meta({
      description:
        "Verification method 2 by hand: the transaction and the contract's read page on the " +
        "network's block explorer, the function `getEvidence`, the values to type in its " +
        'fields and what it must return. Null when the network has no explorer URL or the ' +
        'evidence is not anchored yet',
    }),
  })
  .meta({ id: 'EvidenceVerification' });

export const evidencesVerificationSchema = z
  .object({
    hash: hashHexSchema,
    verified: z.boolean().meta({ description: 'Every evidence listed matches the chain' }),
    evidences: z.array(evidenceVerificationSchema).meta({
      description:
        'The readable evidences with this hash; usually one (the hash does not cover the asset)',
    }),
  })
  .meta({ id: 'EvidencesVerification' });
