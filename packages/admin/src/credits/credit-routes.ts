import { listCreditMovements } from '@trustpoint/db';
import { sendSuccess, validate } from '@trustpoint/http';
import { Router, type Request, type Response } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import {
  creditHistoryQuerySchema,
  grantCreditsBodySchema,
  setCreditsBodySchema,
  userIdParamsSchema,
} from '../admin-schemas.js';
import { movementView } from '../admin-views.js';
import { contextOf } from '../change-context.js';
import { existingAccount } from '../users/user-accounts.js';
import { changeUserCredits, type CreditChangeRequest } from './credit-changes.js';

/** `/users/{id}/credits`: a user's ledger, and an admin's grants and sets. */
export function creditRoutes({ knex }: AdminApiOptions): Router {
  const router = Router();

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
      const change: CreditChangeRequest =
        kind === 'grant'
          ? (() => {
              const body = validate(grantCreditsBodySchema, req.body, 'body');
              return { grant: body.amount, reason: body.reason ?? null };
            })()
          : (() => {
              const body = validate(setCreditsBodySchema, req.body, 'body');
              return { balance: body.balance, reason: body.reason ?? null };
            })();
      const movement = await changeUserCredits(knex, id, change, context);
      sendSuccess(res, 200, kind === 'grant' ? 'Credits granted' : 'Credits set', {
        userId: id,
        balance: movement.balanceAfter,
        movement: movementView(movement),
      });
    };
  router.post('/users/:id/credits/grant', creditChange('grant'));
  router.post('/users/:id/credits/set', creditChange('set'));

  return router;
}
