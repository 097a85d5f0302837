import { scopesBeyond } from '@trustpoint/domain';
import { idempotencyClaimOf, idempotent, sendSuccess, validate } from '@trustpoint/http';
import {
  apiKeyView,
  changeApiKeyScopesBodySchema,
  createApiKeyBodySchema,
  widerThanCreator,
} from '@trustpoint/identity';
import { Router } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import { refused } from '../admin-errors.js';
import { userApiKeyParamsSchema, userIdParamsSchema } from '../admin-schemas.js';
import { contextOf } from '../change-context.js';
import { credentialBounds } from '../credential-bounds.js';
import {
  changeUserApiKeyScopes,
  createUserApiKey,
  listUserApiKeys,
  revokeUnansweredApiKey,
  revokeUserApiKey,
} from './user-api-keys.js';

/** `/users/{id}/api-keys`: any user's API keys (the functions of @trustpoint/identity, audited). */
export function apiKeyRoutes(options: AdminApiOptions): Router {
  const { knex } = options;
  const now = options.now ?? Date.now;
  const router = Router();

  router.get('/users/:id/api-keys', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const apiKeys = await listUserApiKeys(knex, id);
    sendSuccess(res, 200, `Retrieved ${String(apiKeys.length)} API key(s)`, {
      apiKeys: apiKeys.map(apiKeyView),
    });
  });

  // A key is shown once: a creation whose answer was lost with its process cannot be answered
  // again, so a retry with its Idempotency-Key revokes the key nobody received and makes another.
  const keyCreation =
    options.idempotency === undefined
      ? []
      : [
          idempotent(options.idempotency, {
            async recover(keyId, req, res) {
              const { id } = validate(userIdParamsSchema, req.params, 'path');
              await revokeUnansweredApiKey(
                knex,
                { userId: id, keyId, at: new Date(now()) },
                contextOf(res),
              );
              return false;
            },
          }),
        ];
  router.post('/users/:id/api-keys', ...keyCreation, async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const body = validate(createApiKeyBodySchema, req.body, 'body');
    const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= now()) {
      throw refused('body.expiresAt', 'Must be in the future');
    }
    // A key made with a key, for any account: a child of that key.
    const bounds = credentialBounds(res);
    const beyond = scopesBeyond(body.scopes ?? [], bounds?.scopes);
    if (beyond.length > 0) throw widerThanCreator(beyond);
    const boundedExpiry =
      bounds?.expiresAt === undefined ||
      bounds.expiresAt === null ||
      (expiresAt !== null && expiresAt <= bounds.expiresAt)
        ? expiresAt
        : bounds.expiresAt;
    const created = await createUserApiKey(
      knex,
      {
        userId: id,
        name: body.name,
        expiresAt: boundedExpiry,
        scopes: body.scopes ?? bounds?.scopes,
        now,
        ...(bounds?.apiKeyId === undefined ? {} : { parentKeyId: bounds.apiKeyId }),
      },
      idempotencyClaimOf(res),
      contextOf(res),
    );
    res.setHeader('Cache-Control', 'no-store');
    sendSuccess(res, 201, 'API key created; keep it now, it is not shown again', {
      ...apiKeyView(created.apiKey),
      key: created.key,
    });
  });

  // Setting scopes is idempotent by itself: the key only replays the first answer.
  const scopeChange = options.idempotency === undefined ? [] : [idempotent(options.idempotency)];
  router.patch('/users/:id/api-keys/:keyId', ...scopeChange, async (req, res) => {
    const { id, keyId } = validate(userApiKeyParamsSchema, req.params, 'path');
    const { scopes } = validate(changeApiKeyScopesBodySchema, req.body, 'body');
    const beyond = scopesBeyond(scopes, credentialBounds(res)?.scopes);
    if (beyond.length > 0) throw widerThanCreator(beyond);
    const apiKey = await changeUserApiKeyScopes(
      knex,
      { userId: id, keyId, scopes, now },
      contextOf(res),
    );
    sendSuccess(res, 200, 'API key scopes changed', apiKeyView(apiKey));
  });

  router.delete('/users/:id/api-keys/:keyId', async (req, res) => {
    const { id, keyId } = validate(userApiKeyParamsSchema, req.params, 'path');
    const apiKey = await revokeUserApiKey(knex, { userId: id, keyId, now }, contextOf(res));
    sendSuccess(res, 200, 'API key revoked', apiKeyView(apiKey));
  });

  return router;
}
