import { listUserAccounts } from '@trustpoint/db';
import { sendSuccess, validate } from '@trustpoint/http';
import { Router, type Request, type Response } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import {
  createUserBodySchema,
  updateUserBodySchema,
  userIdParamsSchema,
  userListQuerySchema,
  userStateBodySchema,
} from '../admin-schemas.js';
import { userView } from '../admin-views.js';
import { contextOf } from '../change-context.js';
import {
  createUserAccount,
  existingAccount,
  setUserAccountDisabled,
  updateUserAccount,
} from './user-accounts.js';

/** `/users`: create, list, read, change, disable and enable users. */
export function userRoutes({ knex }: AdminApiOptions): Router {
  const router = Router();

  router.post('/users', async (req, res) => {
    const body = validate(createUserBodySchema, req.body, 'body');
    const account = await createUserAccount(knex, body, contextOf(res));
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
    const account = await updateUserAccount(knex, id, changes, contextOf(res));
    sendSuccess(res, 200, 'User updated', userView(account));
  });

  const changeState = (disabled: boolean) =>
    async function userState(req: Request, res: Response) {
      const { id } = validate(userIdParamsSchema, req.params, 'path');
      const { reason } = validate(userStateBodySchema, req.body ?? {}, 'body');
      const account = await setUserAccountDisabled(knex, { id, disabled, reason }, contextOf(res));
      sendSuccess(res, 200, disabled ? 'User disabled' : 'User enabled', userView(account));
    };
  router.post('/users/:id/disable', changeState(true));
  router.post('/users/:id/enable', changeState(false));

  return router;
}
