import { CREDIT_MOVEMENT_KINDS } from '@trustpoint/db';
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

export const accountCreditMovementSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(CREDIT_MOVEMENT_KINDS).meta({
      description:
        '`initial` (the starting balance), `grant` and `set` (by an administrator), `refund` ' +
        '(a credit given back for a record never delivered)',
    }),
    amount: z.number().int().meta({ description: 'The signed change of the balance' }),
    balanceAfter: z.number().int(),
    reason: z.string().nullable(),
    requestId: z
      .string()
      .nullable()
      .meta({ description: 'The request that made it (`X-Request-Id`), when one did' }),
    at: z.iso.datetime(),
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
