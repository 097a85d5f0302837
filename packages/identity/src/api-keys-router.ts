import {
  constraintViolation,
  countActiveApiKeys,
  lockUserApiKeys,
  recordAudit,
  retryTransientConflicts,
  type Queryable,
} from '@trustpoint/db';
import { API_SCOPES, DomainError, scopesBeyond } from '@trustpoint/domain';
import {
  commitIdempotentChange,
  type Credential,
  idempotencyClaimOf,
  idempotent,
  requestIdOf,
  sendSuccess,
  validate,
  type IdempotencyKeys,
} from '@trustpoint/http';
import { Router, type Request, type RequestHandler, type Response } from 'express';

import {
  apiKeyById,
  createApiKey,
  findApiKey,
  listApiKeys,
  revokeApiKey,
  type ApiKey,
} from './api-keys.js';
import { changeApiKeyScopes } from './change-api-key-scopes.js';
import {
  apiKeyIdParamsSchema,
  changeApiKeyScopesBodySchema,
  createApiKeyBodySchema,
} from './identity-schemas.js';
import { revokeApiKeyChange } from './revoke-api-key-change.js';

export const API_KEYS_PATH = '/api-keys';

/** Active keys a user may hold at once, unless the router is told otherwise. */
export const DEFAULT_MAX_API_KEYS_PER_USER = 20;

export interface ApiKeysRouterOptions {
  knex: Queryable;
  /** Where the routes live: `/api-keys` for a user's own, e.g. `/users/:userId/api-keys` for admins. */
  path?: string;
  /** What a request must pass first: `authenticate(auth)` for users, the admin check for admins. */
  guard: RequestHandler | RequestHandler[];
  /** Whose keys a request is about: the caller's own, or the user of the path. */
  owner: (req: Request, res: Response) => string;
  /** Who is acting, recorded as a key's creator or revoker. */
  actor: (req: Request, res: Response) => string;
  /**
   * The credential a new key is made with, which bounds it: the key cannot have scopes it lacks,
   * and when it is an API key (or a token exchanged for one) the new key is its child, expiring no
   * later and revoked with it. Undefined (an administrator's keys for a user): unbounded.
   */
  creator?: (req: Request, res: Response) => Credential | undefined;
  /** Revoked keys in lists too (for administrators); off by default. */
  listRevoked?: boolean;
  /**
   * `PATCH` may give a key scopes it lacks (administrators); off by default: a key's owner may
   * only narrow it.
   */
  widenScopes?: boolean;
  maxKeysPerUser?: number;
  now?: () => number;
  /** `Idempotency-Key` support on key creation and scope changes, when given. */
  idempotency?: IdempotencyKeys | undefined;
}

export function apiKeyView(apiKey: ApiKey) {
  return {
    id: apiKey.id,
    name: apiKey.name,
    prefix: apiKey.prefix,
    createdAt: apiKey.createdAt.toISOString(),
    createdBy: apiKey.createdBy,
    expiresAt: apiKey.expiresAt?.toISOString() ?? null,
    lastUsedAt: apiKey.lastUsedAt?.toISOString() ?? null,
    revokedAt: apiKey.revokedAt?.toISOString() ?? null,
    scopes: apiKey.scopes,
    parentKeyId: apiKey.parentKeyId,
  };
}

/** The 403 for a key asked with scopes the credential making it lacks (`scopesBeyond`). */
export function widerThanCreator(beyond: readonly string[]): DomainError {
  return new DomainError('insufficientScope', {
    detail: `a key cannot be wider than its creator (${beyond.join(' ')})`,
    hint: {
      field: 'body.scopes',
      error: `A key cannot have scopes the credential making it lacks: ${beyond.join(', ')}`,
    },
  });
}

function refused(field: string, error: string): DomainError {
  return new DomainError('validation', { detail: error, errors: [{ field, error }] });
}

/**
 * Create (the key shown once), list, change the scopes of and revoke API keys. The same factory serves a user's own keys
 * on both APIs and an administrator's view of anyone's: only `guard`, `owner` and `actor` differ.
 * Another user's key is a 404, as one that does not exist.
 */
export function apiKeysRouter(options: ApiKeysRouterOptions): Router {
  const { knex } = options;
  const path = options.path ?? API_KEYS_PATH;
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeysPerUser ?? DEFAULT_MAX_API_KEYS_PER_USER;
  const router = Router({ mergeParams: true });
  router.use(path, options.guard);

  // A key is shown once: a creation whose answer was lost with its process cannot be answered
  // again, so a retry revokes the key nobody received and makes another.
  const creation =
    options.idempotency === undefined
      ? []
      : [
          idempotent(options.idempotency, {
            async recover(keyId, req, res) {
              await revokeApiKey(knex, {
                userId: options.owner(req, res),
                id: keyId,
                revokedBy: options.actor(req, res),
                at: new Date(now()),
              });
              return false;
            },
          }),
        ];
  router.post(path, ...creation, async (req, res) => {
    const body = validate(createApiKeyBodySchema, req.body, 'body');
    const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= now()) {
      throw refused('body.expiresAt', 'Must be in the future');
    }
    const userId = options.owner(req, res);
    const creator = options.creator?.(req, res);
    const scopes = body.scopes ?? creator?.scopes ?? API_SCOPES;
    const beyond = scopesBeyond(scopes, creator?.scopes);
    if (beyond.length > 0) throw widerThanCreator(beyond);
    const parentKeyId = creator?.apiKeyId ?? null;
    let created;
    try {
      const actorId = options.actor(req, res);
      // The count, the key and its audit entry in one transaction under the user's lock, so that
      // concurrent creations cannot all pass the count; the key and its entry commit together.
      created = await knex.transaction(async (trx) => {
        await lockUserApiKeys(trx, userId, parentKeyId ?? undefined);
        if ((await countActiveApiKeys(trx, userId, new Date(now()))) >= maxKeys) {
          throw refused(
            'body',
            `A user has at most ${String(maxKeys)} active API keys; revoke one first`,
          );
        }
        // Read under the user's lock, which revocations take too: a parent revoked meanwhile
        // refuses its child rather than leaving it behind.
        const parent =
          parentKeyId === null ? undefined : await apiKeyById(trx, parentKeyId, new Date(now()));
        if (parent !== undefined && parent.status !== 'active') {
          throw new DomainError('invalidToken', {
            detail: `API key ${parentKeyId} is ${parent.status}`,
          });
        }
        // The parent's scopes as they are now: it may have been narrowed since this request's
        // credential was read. Asked-for scopes beyond them are refused, default ones narrowed.
        let granted = scopes;
        if (parent?.status === 'active') {
          const held = parent.apiKey.scopes;
          const late = scopesBeyond(scopes, held);
          if (late.length > 0 && body.scopes !== undefined) throw widerThanCreator(late);
          granted = scopes.filter((scope) => held.includes(scope));
          if (granted.length === 0) throw widerThanCreator(late);
        }
        const parentExpiry = parent?.status === 'active' ? parent.apiKey.expiresAt : null;
        const made = await createApiKey(trx, {
          userId,
          name: body.name,
          expiresAt:
            parentExpiry === null || (expiresAt !== null && expiresAt <= parentExpiry)
              ? expiresAt
              : parentExpiry,
          createdBy: actorId,
          scopes: granted,
          parentKeyId,
        });
        await commitIdempotentChange(trx, idempotencyClaimOf(res), made.apiKey.id);
        await recordAudit(trx, [
          {
            actorId,
            requestId: requestIdOf(res),
            action: 'api-key.create',
            target: `api-key:${made.apiKey.id}`,
            changes: {
              userId,
              name: made.apiKey.name,
              expiresAt: made.apiKey.expiresAt?.toISOString() ?? null,
              scopes: made.apiKey.scopes,
              parentKeyId,
            },
          },
        ]);
        return made;
      });
    } catch (error) {
      if (constraintViolation(error)?.kind === 'foreign-key') {
        throw new DomainError('notFound', { detail: `no user ${userId}`, cause: error });
      }
      throw error;
    }
    res.setHeader('Cache-Control', 'no-store');
    sendSuccess(res, 201, 'API key created; keep it now, it is not shown again', {
      ...apiKeyView(created.apiKey),
      key: created.key,
    });
  });

  router.get(path, async (req, res) => {
    const apiKeys = await listApiKeys(knex, options.owner(req, res), {
      includeRevoked: options.listRevoked ?? false,
    });
    sendSuccess(res, 200, 'API keys', { apiKeys: apiKeys.map(apiKeyView) });
  });

  router.get(`${path}/:keyId`, async (req, res) => {
    const { keyId } = validate(apiKeyIdParamsSchema, req.params, 'path');
    const apiKey = await findApiKey(knex, options.owner(req, res), keyId);
    if (apiKey === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
    sendSuccess(res, 200, 'API key', apiKeyView(apiKey));
  });

  // Setting scopes is idempotent by itself (the same request again changes nothing): the key
  // only replays the first answer.
  const scopeChange = options.idempotency === undefined ? [] : [idempotent(options.idempotency)];
  router.patch(`${path}/:keyId`, ...scopeChange, async (req, res) => {
    const { keyId } = validate(apiKeyIdParamsSchema, req.params, 'path');
    const { scopes } = validate(changeApiKeyScopesBodySchema, req.body, 'body');
    // A deadlock PostgreSQL broke by rolling this back kept nothing: run it again.
    const changed = await retryTransientConflicts(() =>
      knex.transaction((trx) =>
        changeApiKeyScopes(trx, {
          userId: options.owner(req, res),
          keyId,
          scopes,
          mayWiden: options.widenScopes ?? false,
          actingScopes: options.creator?.(req, res)?.scopes,
          actorId: options.actor(req, res),
          requestId: requestIdOf(res),
          now: new Date(now()),
        }),
      ),
    );
    if (changed === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
    sendSuccess(res, 200, 'API key scopes changed', apiKeyView(changed.apiKey));
  });

  router.delete(`${path}/:keyId`, async (req, res) => {
    const { keyId } = validate(apiKeyIdParamsSchema, req.params, 'path');
    const userId = options.owner(req, res);
    const actorId = options.actor(req, res);
    const apiKey = await retryTransientConflicts(() =>
      knex.transaction((trx) =>
        revokeApiKeyChange(trx, {
          userId,
          keyId,
          actingScopes: options.creator?.(req, res)?.scopes,
          actorId,
          requestId: requestIdOf(res),
          now: new Date(now()),
        }),
      ),
    );
    if (apiKey === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
    sendSuccess(res, 200, 'API key revoked', apiKeyView(apiKey));
  });

  return router;
}
