import { apiScopeSchema, successEnvelopeSchema, textSchema } from '@trustpoint/domain';
import { z } from 'zod';

import { CLIENT_TOKEN_TTL_SECONDS } from './identities.js';

const MAX_NAME_LENGTH = 100;

export const createApiKeyBodySchema = z
  .strictObject({
    name: textSchema().trim().min(1).max(MAX_NAME_LENGTH).meta({
      description: 'What the key is for, to tell keys apart',
      example: 'nightly import job',
    }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({
        description:
          'When the key stops working (in the future); never when absent. A key made with an ' +
          'API key (or a token exchanged for one) expires no later than that key: a later or ' +
          'absent expiry becomes its.',
      }),
    scopes: z
      .array(apiScopeSchema)
      .min(1)
      .max(10)
      .optional()
      .meta({
        description:
          'What the key may do. Default: the scopes of the credential making it (every scope ' +
          'for a user token). Never more than those: a scope the credential lacks is a 403 ' +
          '`insufficientScope` naming it (field `body.scopes`).',
        example: ['read', 'certify'],
      }),
  })
  .meta({ id: 'CreateApiKeyBody' });

export const changeApiKeyScopesBodySchema = z
  .strictObject({
    scopes: z
      .array(apiScopeSchema)
      .min(1)
      .max(10)
      .meta({
        description:
          'What the key may do from now on. Its owner may only take scopes away (a scope the ' +
          'key lacks is a 403 `insufficientScope` naming it); an administrator may add some. ' +
          'A key made with another key never gets a scope that key lacks (400), and narrowing ' +
          'a key narrows the keys made with it; one left with no scope is revoked.',
        example: ['read'],
      }),
  })
  .meta({ id: 'ChangeApiKeyScopesBody' });

export const apiKeyIdParamsSchema = z.object({
  keyId: z
    .string()
    .regex(/^[0-9A-Za-z]{12}$/, 'Must be an API key id (12 letters and digits)')
    .meta({ description: 'The key id (the 12 characters after `tp_live_`)' }),
});

export const apiKeyViewSchema = z
  .object({
    id: z.string().meta({ description: 'The key id; the `client_id` at the token endpoint' }),
    name: z.string(),
    prefix: z.string().meta({
      description: 'How the key starts, to recognise it',
      example: 'tp_live_3Fq8ZbK0aT1x',
    }),
    createdAt: z.iso.datetime(),
    createdBy: z
      .string()
      .nullable()
      .meta({ description: 'The user who made it (the owner or an administrator)' }),
    expiresAt: z.iso.datetime().nullable(),
    lastUsedAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'Last successful use, to the minute' }),
    revokedAt: z.iso.datetime().nullable(),
    scopes: z
      .array(apiScopeSchema)
      .meta({ description: 'What the key, and every token exchanged for it, may do' }),
    parentKeyId: z
      .string()
      .nullable()
      .meta({
        description:
          'The key it was made with (by that key or a token exchanged for it): it expires no ' +
          'later than that key, has no scope that key lacks, and is revoked with it',
      }),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeyViewSchema
  .extend({
    key: z.string().meta({
      description:
        'The key, shown only in this answer (only its SHA-256 is kept): `tp_live_` + id + secret + checksum',
      example: 'tp_live_3Fq8ZbK0aT1xW9dLr2VnP6sQy4HcJm7Ek1Bu5Zo8Xa3Gt0Rf2N',
    }),
  })
  .meta({ id: 'CreatedApiKey' });

export const createdApiKeyResponse = successEnvelopeSchema(createdApiKeySchema).meta({
  id: 'CreatedApiKeyResponse',
});
export const apiKeyResponse = successEnvelopeSchema(apiKeyViewSchema).meta({
  id: 'ApiKeyResponse',
});
export const apiKeyListResponse = successEnvelopeSchema(
  z.object({ apiKeys: z.array(apiKeyViewSchema) }),
).meta({ id: 'ApiKeyListResponse' });

/** RFC 6749 4.4.2, with the client's credentials in the body (2.3.1) when not in Basic. */
export const tokenRequestSchema = z
  .object({
    grant_type: textSchema().meta({
      description: 'Must be `client_credentials`',
      example: 'client_credentials',
    }),
    client_id: textSchema()
      .optional()
      .meta({ description: 'The API key id; or HTTP Basic user name' }),
    client_secret: textSchema()
      .optional()
      .meta({ description: 'The API key; or HTTP Basic password' }),
    scope: textSchema()
      .optional()
      .meta({
        description:
          "The scopes the token is for, space-separated (RFC 6749 3.3): some of the key's " +
          "(`read`, `certify`, `track`, `keys`, `webhooks`, `admin`). Default: all the key's. " +
          'A scope the key lacks, or no scope of this service, is `invalid_scope`.',
        example: 'read certify',
      }),
  })
  .meta({ id: 'ClientCredentialsTokenRequest' });

export const tokenResponseSchema = z
  .object({
    access_token: z.string().meta({ description: 'A JWT for `Authorization: Bearer`' }),
    token_type: z.literal('Bearer'),
    expires_in: z
      .number()
      .int()
      .meta({
        description: `Seconds it lives: ${String(CLIENT_TOKEN_TTL_SECONDS)}, or less when the key expires sooner`,
        example: CLIENT_TOKEN_TTL_SECONDS,
      }),
    scope: z.string().meta({
      description: 'The scopes the token was granted, space-separated (its `scope` claim too)',
      example: 'read certify',
    }),
  })
  .meta({ id: 'ClientCredentialsTokenResponse' });

export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export const oauthErrorSchema = z
  .object({
    error: z.enum(OAUTH_ERROR_CODES),
    error_description: z.string().optional(),
  })
  .meta({ id: 'OAuthError', description: 'RFC 6749 section 5.2' });
