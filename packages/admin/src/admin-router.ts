import {
  changeCredits,
  constraintViolation,
  CreditBalanceOverflowError,
  createUser,
  findPlan,
  findUserAccount,
  listAuditEntries,
  listAcknowledgedRecords,
  listCreditMovements,
  listPlans,
  listUserAccounts,
  recordAudit,
  savePlan,
  setUserDisabled,
  updateUser,
  type ChangeContext,
  type Queryable,
  type UserAccount,
} from '@trustpoint/db';
import { API_SCOPES, DomainError } from '@trustpoint/domain';
import {
  apiKeyView,
  changeApiKeyScopes,
  changeApiKeyScopesBodySchema,
  countActiveApiKeys,
  createApiKey,
  createApiKeyBodySchema,
  DEFAULT_MAX_API_KEYS_PER_USER,
  findApiKey,
  listApiKeys,
  lockUserKeys,
  revokeApiKey,
} from '@trustpoint/identity';
import {
  authenticate,
  requireScope,
  commitIdempotentChange,
  currentUser,
  idempotencyClaimOf,
  idempotent,
  mintAccessToken,
  requestIdOf,
  sendSuccess,
  validate,
} from '@trustpoint/http';
import { Router, type Request, type Response } from 'express';
import type { AdminApiOptions } from './admin-api-options.js';
import {
  auditQuerySchema,
  createPlanBodySchema,
  createUserBodySchema,
  creditHistoryQuerySchema,
  grantCreditsBodySchema,
  mintTokenBodySchema,
  planIdParamsSchema,
  recordsQuerySchema,
  setCreditsBodySchema,
  updatePlanBodySchema,
  updateUserBodySchema,
  userApiKeyParamsSchema,
  userIdParamsSchema,
  userListQuerySchema,
  userStateBodySchema,
} from './admin-schemas.js';
import {
  anchorRecordView,
  auditEntryView,
  movementView,
  planView,
  userView,
} from './admin-views.js';
import { requireAdmin } from './require-admin.js';

function refused(field: string, error: string): DomainError {
  return new DomainError('validation', { detail: error, errors: [{ field, error }] });
}

/** The admin making this request, and the request: what the audit log and the ledger record. */
function contextOf(res: Response): ChangeContext {
  return { actorId: currentUser(res).id, requestId: requestIdOf(res) };
}

/** The 404 for a user id that names no user, saying which (`admin credits grant ghost 5`). */
function noSuchUser(id: string): DomainError {
  return new DomainError('notFound', {
    detail: `no user ${id}`,
    hint: { field: 'id', error: `There is no user ${JSON.stringify(id)}` },
  });
}

async function existingAccount(db: Queryable, id: string): Promise<UserAccount> {
  const account = await findUserAccount(db, id);
  if (account === undefined) throw noSuchUser(id);
  return account;
}

/** A plan id given in a body must name a plan: 400 on the field otherwise. */
async function requirePlan(db: Queryable, planId: string, field: string): Promise<void> {
  if ((await findPlan(db, planId)) === undefined) throw refused(field, 'No such plan');
}

/**
 * The admin API's routes (mount at `/admin/v1`): users, plans, credits, tokens, the audit log.
 * Every route needs an admin's token: others get the 401s of the other APIs or a 403. Each change
 * is written to the audit log in its own transaction, with the admin and the request id.
 */
export function adminRouter(options: AdminApiOptions): Router {
  const { knex } = options;
  const now = options.now ?? Date.now;
  const router = Router();
  // An administrator's API key (or a token from one) needs the `admin` scope too.
  router.use(authenticate(options.auth), requireAdmin, requireScope('admin'));

  const requireNetworks = (networkIds: readonly string[]) => {
    const configured = new Set(options.networkIds());
    const unknown = [...new Set(networkIds)].filter((id) => !configured.has(id));
    if (unknown.length > 0) {
      throw refused(
        'body.networkIds',
        `Not configured on this service: ${unknown.join(', ')} (configured: ${[...configured].join(', ') || 'none'})`,
      );
    }
  };

  // Users

  router.post('/users', async (req, res) => {
    const body = validate(createUserBodySchema, req.body, 'body');
    const context = contextOf(res);
    const account = await knex
      .transaction(async (trx) => {
        await requirePlan(trx, body.planId, 'body.planId');
        await createUser(
          trx,
          {
            id: body.id,
            displayName: body.displayName,
            planId: body.planId,
            qualified: body.qualified,
            role: body.role,
            initialCredits: body.credits,
          },
          context,
        );
        await recordAudit(trx, [
          {
            ...context,
            action: 'user.create',
            target: `user:${body.id}`,
            changes: {
              displayName: body.displayName,
              planId: body.planId,
              qualified: body.qualified,
              role: body.role,
              credits: body.credits,
            },
          },
        ]);
        return existingAccount(trx, body.id);
      })
      .catch((error: unknown) => {
        const violation = constraintViolation(error);
        if (violation?.kind === 'unique') throw new DomainError('alreadyExists', { cause: error });
        if (violation?.kind === 'foreign-key') throw refused('body.planId', 'No such plan');
        throw error;
      });
    sendSuccess(res, 201, 'User created', userView(account));
  });

  router.get('/users', async (req, res) => {
    const query = validate(userListQuerySchema, req.query, 'query');
    const { accounts, total } = await listUserAccounts(knex, query);
    sendSuccess(res, 200, `Retrieved ${String(accounts.length)} user(s) out of ${String(total)}`, {
      users: accounts.map(userView),
      pagination: { offset: query.offset, limit: query.limit, total, order: query.order },
    });
  });

  router.get('/users/:id', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    sendSuccess(res, 200, 'User retrieved', userView(await existingAccount(knex, id)));
  });

  router.patch('/users/:id', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const changes = validate(updateUserBodySchema, req.body, 'body');
    const context = contextOf(res);
    if (id === context.actorId && changes.role === 'user') {
      // The last way back in would be the database itself.
      throw refused('body.role', 'An administrator cannot take their own admin role away');
    }
    const account = await knex.transaction(async (trx) => {
      const before = await existingAccount(trx, id);
      if (changes.planId !== undefined) await requirePlan(trx, changes.planId, 'body.planId');
      const updated = await updateUser(trx, id, changes);
      if (updated === undefined) throw new DomainError('notFound');
      const changed = Object.fromEntries(
        Object.entries(changes).filter(
          ([field, value]) => before[field as keyof typeof changes] !== value,
        ),
      );
      if (Object.keys(changed).length > 0) {
        await recordAudit(trx, [
          { ...context, action: 'user.update', target: `user:${id}`, changes: changed },
        ]);
      }
      return updated;
    });
    sendSuccess(res, 200, 'User updated', userView(account));
  });

  const changeState = (disabled: boolean) =>
    async function userState(req: Request, res: Response) {
      const { id } = validate(userIdParamsSchema, req.params, 'path');
      const { reason } = validate(userStateBodySchema, req.body ?? {}, 'body');
      const context = contextOf(res);
      if (disabled && id === context.actorId) {
        throw refused('path.id', 'An administrator cannot disable themselves');
      }
      const account = await knex.transaction(async (trx) => {
        const before = await trx('users')
          .where('id', id)
          .forUpdate()
          .first<{ disabled_at: Date | null } | undefined>('disabled_at');
        if (before === undefined) throw noSuchUser(id);
        const updated = await setUserDisabled(trx, id, disabled);
        if (updated === undefined) throw new DomainError('notFound');
        if ((before.disabled_at !== null) !== disabled) {
          await recordAudit(trx, [
            {
              ...context,
              action: disabled ? 'user.disable' : 'user.enable',
              target: `user:${id}`,
              changes: reason === undefined ? {} : { reason },
            },
          ]);
        }
        return updated;
      });
      sendSuccess(res, 200, disabled ? 'User disabled' : 'User enabled', userView(account));
    };
  router.post('/users/:id/disable', changeState(true));
  router.post('/users/:id/enable', changeState(false));

  // Credits

  router.get('/users/:id/credits', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const query = validate(creditHistoryQuerySchema, req.query, 'query');
    const account = await existingAccount(knex, id);
    const { movements, total } = await listCreditMovements(knex, id, query);
    sendSuccess(res, 200, `Retrieved ${String(movements.length)} credit movement(s)`, {
      userId: id,
      balance: account.credits,
      movements: movements.map(movementView),
      pagination: { offset: query.offset, limit: query.limit, total, order: query.order },
    });
  });

  const creditChange = (kind: 'grant' | 'set') =>
    async function credits(req: Request, res: Response) {
      const { id } = validate(userIdParamsSchema, req.params, 'path');
      const context = contextOf(res);
      const change =
        kind === 'grant'
          ? (() => {
              const body = validate(grantCreditsBodySchema, req.body, 'body');
              return { grant: body.amount, reason: body.reason ?? null };
            })()
          : (() => {
              const body = validate(setCreditsBodySchema, req.body, 'body');
              return { balance: body.balance, reason: body.reason ?? null };
            })();
      const movement = await knex.transaction(async (trx) => {
        let made;
        try {
          made = await changeCredits(trx, id, { ...change, ...context });
        } catch (error) {
          if (!(error instanceof CreditBalanceOverflowError)) throw error;
          throw refused(
            kind === 'grant' ? 'body.amount' : 'body.balance',
            `Would take the balance above ${String(error.maxBalance)}, the most it can hold`,
          );
        }
        if (made === undefined) throw noSuchUser(id);
        await recordAudit(trx, [
          {
            ...context,
            action: `credits.${kind}`,
            target: `user:${id}`,
            changes: {
              amount: made.amount,
              balanceAfter: made.balanceAfter,
              ...(made.reason === null ? {} : { reason: made.reason }),
            },
          },
        ]);
        return made;
      });
      sendSuccess(res, 200, kind === 'grant' ? 'Credits granted' : 'Credits set', {
        userId: id,
        balance: movement.balanceAfter,
        movement: movementView(movement),
      });
    };
  router.post('/users/:id/credits/grant', creditChange('grant'));
  router.post('/users/:id/credits/set', creditChange('set'));

  // Tokens

  router.post('/users/:id/tokens', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const { expiresInSeconds } = validate(mintTokenBodySchema, req.body ?? {}, 'body');
    const context = contextOf(res);
    const account = await existingAccount(knex, id);
    if (account.disabledAt !== null) {
      throw refused('path.id', 'The user is disabled: a token for it would be refused');
    }
    const expiresAt = new Date(Math.floor(now() / 1_000) * 1_000 + expiresInSeconds * 1_000);
    // Recorded first: a token that exists is always in the log (one that failed to be made may be).
    await recordAudit(knex, [
      {
        ...context,
        action: 'token.mint',
        target: `user:${id}`,
        changes: { expiresAt: expiresAt.toISOString() },
      },
    ]);
    const accessToken = await mintAccessToken(options.tokenSecret, {
      subject: id,
      ttlSeconds: expiresInSeconds,
    });
    sendSuccess(res, 201, 'Access token minted: it is not stored, keep it', {
      accessToken,
      tokenType: 'Bearer' as const,
      expiresIn: expiresInSeconds,
      expiresAt: expiresAt.toISOString(),
      userId: id,
    });
  });

  // API keys of any user (the functions of @trustpoint/identity, audited here)

  router.get('/users/:id/api-keys', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    await existingAccount(knex, id);
    const apiKeys = await listApiKeys(knex, id, { includeRevoked: true });
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
              const context = contextOf(res);
              await knex.transaction(async (trx) => {
                const revoked = await revokeApiKey(trx, {
                  userId: id,
                  id: keyId,
                  revokedBy: context.actorId,
                  at: new Date(now()),
                });
                if (revoked !== undefined) {
                  await recordAudit(trx, [
                    {
                      ...context,
                      action: 'api-key.revoke',
                      target: `api-key:${keyId}`,
                      changes: { userId: id, reason: 'its creation was never answered' },
                    },
                  ]);
                }
              });
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
    const context = contextOf(res);
    const created = await knex.transaction(async (trx) => {
      await existingAccount(trx, id);
      // Under the user's lock, so that concurrent creations cannot both pass the count.
      await lockUserKeys(trx, id);
      if ((await countActiveApiKeys(trx, id, new Date(now()))) >= DEFAULT_MAX_API_KEYS_PER_USER) {
        throw refused(
          'body',
          `A user has at most ${String(DEFAULT_MAX_API_KEYS_PER_USER)} active API keys; revoke one first`,
        );
      }
      // An administrator's key for a user has no parent: it is the user's, bounded by nothing
      // of the administrator's. Every scope unless the body names some.
      const made = await createApiKey(trx, {
        userId: id,
        name: body.name,
        expiresAt,
        createdBy: context.actorId,
        scopes: body.scopes ?? API_SCOPES,
      });
      await commitIdempotentChange(trx, idempotencyClaimOf(res), made.apiKey.id);
      await recordAudit(trx, [
        {
          ...context,
          action: 'api-key.create',
          target: `api-key:${made.apiKey.id}`,
          changes: {
            userId: id,
            name: made.apiKey.name,
            expiresAt: expiresAt?.toISOString() ?? null,
            scopes: made.apiKey.scopes,
          },
        },
      ]);
      return made;
    });
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
    const context = contextOf(res);
    const changed = await knex.transaction(async (trx) => {
      await existingAccount(trx, id);
      return changeApiKeyScopes(trx, {
        userId: id,
        keyId,
        scopes,
        mayWiden: true,
        ...context,
        now: new Date(now()),
      });
    });
    if (changed === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
    sendSuccess(res, 200, 'API key scopes changed', apiKeyView(changed.apiKey));
  });

  router.delete('/users/:id/api-keys/:keyId', async (req, res) => {
    const { id, keyId } = validate(userApiKeyParamsSchema, req.params, 'path');
    const context = contextOf(res);
    const apiKey = await knex.transaction(async (trx) => {
      const before = await findApiKey(trx, id, keyId);
      if (before === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
      const revoked = await revokeApiKey(trx, {
        userId: id,
        id: keyId,
        revokedBy: context.actorId,
        at: new Date(now()),
      });
      if (revoked === undefined) throw new DomainError('notFound', { detail: 'no such API key' });
      // Revoking again changes nothing and records nothing.
      if (before.revokedAt !== null) return revoked;
      await recordAudit(trx, [
        {
          ...context,
          action: 'api-key.revoke',
          target: `api-key:${keyId}`,
          changes: {
            userId: id,
            ...(revoked.descendants.length === 0 ? {} : { descendants: revoked.descendants }),
          },
        },
      ]);
      return revoked;
    });
    sendSuccess(res, 200, 'API key revoked', apiKeyView(apiKey));
  });

  // Plans

  router.post('/plans', async (req, res) => {
    const body = validate(createPlanBodySchema, req.body, 'body');
    requireNetworks(body.networkIds);
    const context = contextOf(res);
    const plan = await knex.transaction(async (trx) => {
      const inserted = await trx('plans')
        .insert({ id: body.id, name: body.name })
        .onConflict('id')
        .ignore()
        .returning('id');
      if (inserted.length === 0) throw new DomainError('alreadyExists');
      const saved = await savePlan(trx, body);
      await recordAudit(trx, [
        {
          ...context,
          action: 'plan.create',
          target: `plan:${saved.id}`,
          changes: { name: saved.name, networkIds: saved.networkIds },
        },
      ]);
      return saved;
    });
    sendSuccess(res, 201, 'Plan created', planView(plan));
  });

  router.get('/plans', async (_req, res) => {
    const plans = await listPlans(knex);
    sendSuccess(res, 200, `Retrieved ${String(plans.length)} plan(s)`, {
      plans: plans.map(planView),
    });
  });

  router.get('/plans/:id', async (req, res) => {
    const { id } = validate(planIdParamsSchema, req.params, 'path');
    const plan = await findPlan(knex, id);
    if (plan === undefined) throw new DomainError('notFound', { detail: `no plan ${id}` });
    sendSuccess(res, 200, 'Plan retrieved', planView(plan));
  });

  router.put('/plans/:id', async (req, res) => {
    const { id } = validate(planIdParamsSchema, req.params, 'path');
    const body = validate(updatePlanBodySchema, req.body, 'body');
    requireNetworks(body.networkIds);
    const context = contextOf(res);
    const plan = await knex.transaction(async (trx) => {
      const locked = await trx('plans')
        .where('id', id)
        .forUpdate()
        .first<{ id: string } | undefined>('id');
      const before = locked === undefined ? undefined : await findPlan(trx, id);
      if (before === undefined) throw new DomainError('notFound', { detail: `no plan ${id}` });
      const saved = await savePlan(trx, {
        id,
        name: body.name ?? before.name,
        networkIds: body.networkIds,
      });
      await recordAudit(trx, [
        {
          ...context,
          action: 'plan.update',
          target: `plan:${id}`,
          changes: {
            ...(saved.name === before.name ? {} : { name: saved.name }),
            networkIds: { before: before.networkIds, after: saved.networkIds },
          },
        },
      ]);
      return saved;
    });
    sendSuccess(res, 200, 'Plan updated', planView(plan));
  });

  // Audit log

  router.get('/audit', async (req, res) => {
    const query = validate(auditQuerySchema, req.query, 'query');
    const { entries, total } = await listAuditEntries(knex, {
      ...(query.actor === undefined ? {} : { actorId: query.actor }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.target === undefined ? {} : { target: query.target }),
      ...(query.since === undefined ? {} : { since: new Date(query.since) }),
      ...(query.until === undefined ? {} : { until: new Date(query.until) }),
      offset: query.offset,
      limit: query.limit,
    });
    sendSuccess(res, 200, `Retrieved ${String(entries.length)} audit entr(ies)`, {
      entries: entries.map(auditEntryView),
      pagination: { offset: query.offset, limit: query.limit, total, order: 'desc' as const },
    });
  });

  // Anchor records: what reconciliation compares with the chain

  router.get('/records', async (req, res) => {
    const query = validate(recordsQuerySchema, req.query, 'query');
    const records = await listAcknowledgedRecords(knex, {
      ...(query.network === undefined ? {} : { networkId: query.network }),
      ...(query.since === undefined ? {} : { since: new Date(query.since) }),
      ...(query.after === undefined ? {} : { after: query.after }),
      limit: query.limit,
    });
    const last = records.length === query.limit ? records[records.length - 1] : undefined;
    sendSuccess(res, 200, `Retrieved ${String(records.length)} record(s)`, {
      records: records.map(anchorRecordView),
      next: last?.id ?? null,
    });
  });

  return router;
}
