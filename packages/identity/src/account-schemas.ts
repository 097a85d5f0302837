import { CREDIT_MOVEMENT_KINDS, CREDIT_SPENDING_ACTIONS } from '@trustpoint/db';
import {
  apiScopeSchema,
  pageParams,
  paginationSchema,
  successEnvelopeSchema,
} from '@trustpoint/domain';
import { z } from 'zod';

export const accountCredentialSchema = z
  .object({
    scopes: z.array(apiScopeSchema).meta({
      description:
        "What this request's credential may do: an API key's scopes, those a token was " +
        'narrowed to at the token endpoint, or every scope for a token without a `scope`',
    }),
    apiKeyId: z.string().nullable().meta({
      description: 'The API key behind the credential (the key, or the key a token came from)',
    }),
    expiresAt: z.iso.datetime().nullable().meta({
      description: "When the credential stops working (a key's expiry, a token's); null: never",
    }),
  })
  .meta({ id: 'AccountCredential' });

export const accountSchema = z
  .object({
    userId: z.string(),
    userDid: z.string().meta({ description: 'As certificates name their issuer: `did:user:<id>`' }),
    displayName: z.string(),
    qualified: z.boolean().meta({ description: 'May request qualified signatures' }),
    credits: z.number().int().meta({ description: 'Credits left: one per anchored record' }),
    plan: z
      .object({
        id: z.string(),
        name: z.string(),
        networkIds: z
          .array(z.string())
          .meta({ description: 'The networks the caller may anchor on (`networkId`)' }),
      })
      .meta({ id: 'AccountPlan' }),
    credential: accountCredentialSchema,
  })
  .meta({ id: 'Account' });

export const creditSpendSchema = z
  .object({
    operation: z.enum(CREDIT_SPENDING_ACTIONS).meta({
      description:
        'What spent the credit: `certificate.create` (a certificate of any type: content, file, ' +
        'asset, URL), `certificate.sign` (a qualified signature asked for later), ' +
        '`certificate.reanchor`, `asset.create` (an asset with its first evidence), ' +
        '`evidence.add`. Revocations and the signature of a qualified creation are free.',
    }),
    certID: z.string().optional().meta({ description: 'The certificate, for `certificate.*`' }),
    trackID: z
      .string()
      .optional()
      .meta({ description: 'The asset, for `asset.create` and `evidence.add`' }),
    evidenceHash: z.string().optional().meta({
      description:
        "For `evidence.add`: the evidence's hash, its id at `GET /evidences/{id}` (asset-tracking API)",
    }),
    timestamp: z
      .number()
      .int()
      .optional()
      .meta({
        description:
          'The timestamp of what the credit anchored, when it is not the certificate itself: ' +
          'the new trustpoint of a signature or re-anchoring (ms), the evidence of an asset or ' +
          'evidence (s)',
      }),
  })
  .meta({ id: 'CreditSpend' });

export const accountCreditMovementSchema = z
  .object({
    id: z
      .number()
      .int()
      .meta({
        description:
          "Unique among the ledger's rows; a spend's is the id of its entry in the audit log. " +
          'Ids are not the order: the list is.',
      }),
    kind: z.enum(CREDIT_MOVEMENT_KINDS).meta({
      description:
        '`initial` (the starting balance), `grant` and `set` (by an administrator), `spend` ' +
        '(one credit, for what `spentOn` says), `refund` (a credit given back for a record ' +
        'never delivered: a creation withdrawn after a synchronous wait, a record the chain ' +
        'refused)',
    }),
    amount: z.number().int().meta({ description: 'The signed change of the balance' }),
    balanceAfter: z.number().int().meta({
      description: "The balance once this row applied: the previous row's plus `amount`",
    }),
    reason: z.string().nullable(),
    requestId: z
      .string()
      .nullable()
      .meta({ description: 'The request that made it (`X-Request-Id`), when one did' }),
    at: z.iso.datetime(),
    spentOn: creditSpendSchema.nullable().meta({
      description:
        'A spend: what it paid for. A refund: what the credit it gives back had paid for. ' +
        'Null otherwise (and for refunds recorded before spends were listed).',
    }),
    refundOf: z.number().int().nullable().meta({
      description: 'A refund: the `id` of the spend it gives back; null otherwise',
    }),
  })
  .meta({ id: 'AccountCreditMovement' });

export const accountCreditMovementsQuerySchema = z.object(pageParams);

export const accountResponse = successEnvelopeSchema(accountSchema).meta({
  id: 'AccountResponse',
});

export const accountCreditMovementsResponse = successEnvelopeSchema(
  z.object({
    balance: z.number().int(),
    movements: z.array(accountCreditMovementSchema),
    pagination: paginationSchema,
  }),
).meta({ id: 'AccountCreditMovementsResponse' });
