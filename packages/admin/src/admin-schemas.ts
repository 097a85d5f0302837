import {
  ACKNOWLEDGED_RECORD_STATUSES,
  CREDIT_MOVEMENT_KINDS,
  MAX_RECORDS_PAGE,
  USER_ROLES,
} from '@trustpoint/db';
import { apiKeyViewSchema, createdApiKeySchema, creditSpendSchema } from '@trustpoint/identity';
import {
  ACCOUNT_ID,
  booleanParam,
  integerParam,
  NEW_ACCOUNT_ID_RULES,
  paginationSchema,
  sortOrderSchema,
  successEnvelopeSchema,
  textSchema,
} from '@trustpoint/domain';
import { z } from 'zod';

/** Longest free text an admin gives (display names, plan names, reasons). */
const MAX_TEXT = 500;

/** A user or plan id: printable ASCII without spaces, as JWT subjects and OIDC subjects are. */
const idSchema = (what: string) =>
  z
    .string()
    .regex(ACCOUNT_ID.pattern, ACCOUNT_ID.message)
    .meta({ description: `The ${what} id` });

/**
 * The id of a new user or plan: besides `idSchema`, one every client can put in a path segment of
 * `/users/{id}` or `/plans/{id}` (`NEW_ACCOUNT_ID_RULES`, which users a provider's sign-in makes
 * obey too). Existing ids are still found by the lenient `idSchema`.
 */
const newIdSchema = (what: string) =>
  NEW_ACCOUNT_ID_RULES.reduce(
    (schema, rule) => schema.refine(rule.allows, rule.message),
    idSchema(what),
  );

/** The most credits a balance may hold, at creation as with `credits set`. */
export const MAX_CREDIT_BALANCE = 1_000_000_000_000;
/** The most credits one grant may add. */
export const MAX_CREDIT_GRANT = 1_000_000_000;

/**
 * A whole number of credits from `min` to `max`, with one problem when it is wrong: a number
 * past `max` is said to be too big once, not also as beyond the safe integers.
 */
const creditsSchema = (min: number, max: number) =>
  z.number().min(min, { abort: true }).max(max, { abort: true }).int();

const nameSchema = textSchema().trim().min(1).max(MAX_TEXT);
const reasonSchema = textSchema().max(MAX_TEXT).optional().meta({
  description: 'Why: kept in the credit ledger and the audit log',
});

export const userRoleSchema = z.enum(USER_ROLES).meta({
  id: 'UserRole',
  description: "'admin' also reaches the admin API",
});

const networkIdSchema = z
  .union([z.string().regex(/^\d{1,20}$/, 'Must be a decimal network id'), z.number().int().min(0)])
  .transform(String)
  .meta({ description: 'A network id the service has configured (GET /cert/v2/networks)' });

// Requests

export const userIdParamsSchema = z.object({ id: idSchema('user') });
export const userApiKeyParamsSchema = z.object({
  id: idSchema('user'),
  keyId: z
    .string()
    .regex(/^[0-9A-Za-z]{12}$/, 'Must be an API key id (12 letters and digits)')
    .meta({ description: 'The key id (the 12 characters after `tp_live_`)' }),
});
export const planIdParamsSchema = z.object({ id: idSchema('plan') });

export const createUserBodySchema = z
  .strictObject({
    id: newIdSchema('user').meta({
      description:
        'The user id: the `sub` of its tokens. 1 to 200 printable ASCII characters, not only ' +
        'dots, without /, \\ or % (it is a path segment of /users/{id})',
    }),
    displayName: nameSchema,
    planId: idSchema('plan'),
    qualified: z.boolean().default(false),
    role: userRoleSchema.default('user'),
    credits: creditsSchema(0, MAX_CREDIT_BALANCE).default(0).meta({
      description: 'The balance to start with',
    }),
  })
  .meta({ id: 'CreateUserBody' });

export const updateUserBodySchema = z
  .strictObject({
    displayName: nameSchema.optional(),
    planId: idSchema('plan').optional(),
    qualified: z.boolean().optional(),
    role: userRoleSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Give at least one field to change')
  .meta({ id: 'UpdateUserBody' });

export const userStateBodySchema = z
  .strictObject({ reason: reasonSchema })
  .meta({ id: 'UserStateBody' });

export const userListQuerySchema = z.object({
  offset: integerParam(z.number().nonnegative()).default(0),
  limit: integerParam(z.number().min(1).max(100)).default(20),
  order: sortOrderSchema.default('asc').meta({ description: 'By user id' }),
  disabled: booleanParam.optional().meta({
    description: 'Only disabled (true) or only active (false) users; both when absent',
  }),
});

export const creditHistoryQuerySchema = z.object({
  offset: integerParam(z.number().nonnegative()).default(0),
  limit: integerParam(z.number().min(1).max(100)).default(20),
  order: sortOrderSchema.default('desc'),
});

export const grantCreditsBodySchema = z
  .strictObject({
    amount: creditsSchema(1, MAX_CREDIT_GRANT).meta({ description: 'Credits to add' }),
    reason: reasonSchema,
  })
  .meta({ id: 'GrantCreditsBody' });

export const setCreditsBodySchema = z
  .strictObject({
    balance: creditsSchema(0, MAX_CREDIT_BALANCE).meta({ description: 'The new balance' }),
    reason: reasonSchema,
  })
  .meta({ id: 'SetCreditsBody' });

/** Longest token an admin may mint: as long as the launcher's local token. */
export const MAX_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export const mintTokenBodySchema = z
  .strictObject({
    expiresInSeconds: z.number().int().min(60).max(MAX_TOKEN_TTL_SECONDS).default(3600),
  })
  .meta({ id: 'MintTokenBody' });

export const createPlanBodySchema = z
  .strictObject({
    id: newIdSchema('plan').meta({
      description:
        'The plan id: 1 to 200 printable ASCII characters, not only dots, without /, \\ or % ' +
        '(it is a path segment of /plans/{id})',
    }),
    name: nameSchema,
    networkIds: z.array(networkIdSchema).max(1000),
  })
  .meta({ id: 'CreatePlanBody' });

export const updatePlanBodySchema = z
  .strictObject({
    name: nameSchema.optional().meta({ description: 'Kept when absent' }),
    networkIds: z.array(networkIdSchema).max(1000).meta({ description: 'Replaces the networks' }),
  })
  .meta({ id: 'UpdatePlanBody' });

export const auditQuerySchema = z.object({
  actor: idSchema('actor user').optional(),
  action: z
    .string()
    .regex(/^[a-z-]+\.[a-z-]+$/, 'Must look like user.create')
    .optional(),
  target: textSchema().min(1).max(1000).optional().meta({
    description:
      "`<kind>:<id>`, e.g. `user:alice`, exactly; `user:<id>` also lists the entries on that user's API keys",
  }),
  since: z.iso.datetime({ offset: true }).optional().meta({ description: 'At or after' }),
  until: z.iso.datetime({ offset: true }).optional().meta({ description: 'Before' }),
  offset: integerParam(z.number().nonnegative()).default(0),
  limit: integerParam(z.number().min(1).max(500)).default(50),
});

export const recordsQuerySchema = z.object({
  network: z
    .string()
    .regex(/^\d{1,20}$/, 'Must be a decimal network id')
    .optional()
    .meta({ description: 'Only the records of this network; every network when absent' }),
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only records created at or after this time' }),
  after: integerParam(z.number().nonnegative())
    .optional()
    .meta({ description: "The `next` cursor of the previous page (its last record's id)" }),
  limit: integerParam(z.number().min(1).max(MAX_RECORDS_PAGE)).default(1_000),
});

// Answers

export const userSchema = z
  .object({
    id: z.string(),
    displayName: z.string(),
    role: userRoleSchema,
    qualified: z.boolean(),
    planId: z.string(),
    networkIds: z.array(z.string()).meta({ description: "The networks of the user's plan" }),
    credits: z.number().int(),
    disabled: z.boolean(),
    disabledAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AdminUser' });

export const planSchema = z
  .object({ id: z.string(), name: z.string(), networkIds: z.array(z.string()) })
  .meta({ id: 'Plan' });

export const creditMovementSchema = z
  .object({
    id: z.number().int().meta({
      description: "Unique among the ledger's rows; a spend's is the id of its audit log entry",
    }),
    kind: z.enum(CREDIT_MOVEMENT_KINDS).meta({
      description:
        '`initial`, `grant`, `set`, `spend` (one credit, for what `spentOn` says) or `refund`',
    }),
    amount: z.number().int().meta({ description: 'The signed change of the balance' }),
    balanceAfter: z.number().int(),
    actor: z.string().nullable().meta({
      description: "Null for the service's own refunds; the user for a spend",
    }),
    reason: z.string().nullable(),
    requestId: z.string().nullable(),
    at: z.iso.datetime(),
    spentOn: creditSpendSchema.nullable().meta({
      description: 'A spend: what it paid for; a refund: what the credit it gives back paid for',
    }),
    refundOf: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'A refund: the id of the spend it gives back' }),
  })
  .meta({ id: 'CreditMovement' });

export const creditChangeSchema = z
  .object({ userId: z.string(), balance: z.number().int(), movement: creditMovementSchema })
  .meta({ id: 'CreditChange' });

export const creditHistorySchema = z
  .object({
    userId: z.string(),
    balance: z.number().int(),
    movements: z.array(creditMovementSchema),
    pagination: paginationSchema,
  })
  .meta({ id: 'CreditHistory' });

export const mintedTokenSchema = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int(),
    expiresAt: z.iso.datetime(),
    userId: z.string(),
  })
  .meta({ id: 'MintedToken' });

export const auditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.iso.datetime(),
    actor: z.string().nullable(),
    requestId: z.string().nullable(),
    action: z.string(),
    target: z.string(),
    changes: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });

export const anchorRecordSchema = z
  .object({
    id: z.number().int().meta({ description: "The record's position in the anchoring queue" }),
    networkId: z.string(),
    kind: z.enum(['trustpoint', 'evidence']),
    recordKey: z.string().meta({ description: 'The on-chain key, 0x + 64 hex' }),
    hash: z.string().meta({ description: 'The hash to be on chain under the key, 64 hex' }),
    trustPointType: z
      .number()
      .int()
      .nullable()
      .meta({ description: '0 Evidence, 1 Revocation, 2 Signature; null for evidences' }),
    status: z.enum(ACKNOWLEDGED_RECORD_STATUSES).meta({
      description:
        '`queued` and `batched` are on their way; `anchored` is on chain; `failed` was refused by the registry',
    }),
    contract: z.string().nullable().meta({ description: 'The registry, once anchored' }),
    transactionHash: z.string().nullable(),
    blockNumber: z.number().int().nullable(),
    createdAt: z.iso.datetime(),
    anchoredAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'AnchorRecord' });

export const recordPageSchema = z
  .object({
    records: z.array(anchorRecordSchema),
    next: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Pass as `after` for the next page; null on the last page' }),
  })
  .meta({ id: 'AnchorRecordPage' });

export const userResponse = successEnvelopeSchema(userSchema).meta({ id: 'AdminUserResponse' });
export const userListResponse = successEnvelopeSchema(
  z.object({ users: z.array(userSchema), pagination: paginationSchema }),
).meta({ id: 'AdminUserListResponse' });
export const planResponse = successEnvelopeSchema(planSchema).meta({ id: 'PlanResponse' });
export const planListResponse = successEnvelopeSchema(
  z.object({ plans: z.array(planSchema) }),
).meta({ id: 'PlanListResponse' });
export const creditChangeResponse = successEnvelopeSchema(creditChangeSchema).meta({
  id: 'CreditChangeResponse',
});
export const creditHistoryResponse = successEnvelopeSchema(creditHistorySchema).meta({
  id: 'CreditHistoryResponse',
});
export const mintedTokenResponse = successEnvelopeSchema(mintedTokenSchema).meta({
  id: 'MintedTokenResponse',
});
export const adminApiKeyListResponse = successEnvelopeSchema(
  z.object({ apiKeys: z.array(apiKeyViewSchema) }),
).meta({ id: 'AdminApiKeyListResponse' });
export const adminApiKeyResponse = successEnvelopeSchema(apiKeyViewSchema).meta({
  id: 'AdminApiKeyResponse',
});
export const adminCreatedApiKeyResponse = successEnvelopeSchema(createdApiKeySchema).meta({
  id: 'AdminCreatedApiKeyResponse',
});
export const auditListResponse = successEnvelopeSchema(
  z.object({ entries: z.array(auditEntrySchema), pagination: paginationSchema }),
).meta({ id: 'AuditListResponse' });
export const recordPageResponse = successEnvelopeSchema(recordPageSchema).meta({
  id: 'AnchorRecordPageResponse',
});
