import { findPlan, findUserAccount, listCreditMovements, type Queryable } from '@trustpoint/db';
import { API_SCOPES, DomainError, formatUserDid } from '@trustpoint/domain';
import {
  authenticate,
  currentCredential,
  currentUser,
  requireScope,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { Router, type Response } from 'express';

import { accountCreditMovementsQuerySchema } from './account-schemas.js';
import { creditSpendView } from './credit-spend-view.js';

export const ACCOUNT_PATH = '/account';

async function accountOf(knex: Queryable, res: Response) {
  const user = currentUser(res);
  const account = await findUserAccount(knex, user.id);
  // Authenticated a moment ago: gone since, as after a deletion.
  if (account === undefined) throw new DomainError('notFound', { detail: 'no such user' });
  return account;
}

/**
 * The caller's own account, read-only, the same on both APIs: `GET /account` (balance, plan and
 * its networks, what the credential may do and until when) and `GET /account/credit-movements`
 * (the ledger of the caller's balance, spends included, a page at a time). Both need the `read` scope.
 */
export function accountRouter(options: { knex: Queryable; auth: AuthenticateOptions }): Router {
  const { knex } = options;
  const router = Router();
  router.use(ACCOUNT_PATH, authenticate(options.auth), requireScope('read'));

  router.get(ACCOUNT_PATH, async (_req, res) => {
    const account = await accountOf(knex, res);
    const plan = await findPlan(knex, account.planId);
    const credential = currentCredential(res);
    sendSuccess(res, 200, 'Account retrieved successfully', {
      userId: account.id,
      userDid: formatUserDid(account.id),
      displayName: account.displayName,
      qualified: account.qualified,
      credits: account.credits,
      plan: {
        id: account.planId,
        name: plan?.name ?? account.planId,
        networkIds: account.planNetworkIds,
      },
      credential: {
        scopes: credential?.scopes ?? API_SCOPES,
        apiKeyId: credential?.apiKeyId ?? null,
        expiresAt: credential?.expiresAt?.toISOString() ?? null,
      },
    });
  });

  router.get(`${ACCOUNT_PATH}/credit-movements`, async (req, res) => {
    const query = validate(accountCreditMovementsQuerySchema, req.query, 'query');
    const account = await accountOf(knex, res);
    const { movements, total } = await listCreditMovements(knex, account.id, query);
    sendSuccess(
      res,
      200,
      `Retrieved ${String(movements.length)} credit movement(s) out of a total of ${String(total)}`,
      {
        balance: account.credits,
        movements: movements.map((movement) => ({
          id: movement.id,
          kind: movement.kind,
          amount: movement.amount,
          balanceAfter: movement.balanceAfter,
          reason: movement.reason,
          requestId: movement.requestId,
          at: movement.at.toISOString(),
          spentOn: creditSpendView(movement.spentOn),
          refundOf: movement.refundOf,
        })),
        pagination: { offset: query.offset, limit: query.limit, total, order: query.order },
      },
    );
  });

  return router;
}
