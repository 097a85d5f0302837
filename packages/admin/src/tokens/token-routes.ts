import { sendSuccess, validate } from '@trustpoint/http';
import { Router } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import { mintTokenBodySchema, userIdParamsSchema } from '../admin-schemas.js';
import { contextOf } from '../change-context.js';
import { mintUserToken } from './mint-user-token.js';

/** `/users/{id}/tokens`: access tokens minted for a user (not stored). */
export function tokenRoutes(options: AdminApiOptions): Router {
  const router = Router();
  const now = options.now ?? Date.now;

  router.post('/users/:id/tokens', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const { expiresInSeconds } = validate(mintTokenBodySchema, req.body ?? {}, 'body');
    const { accessToken, expiresAt } = await mintUserToken(
      options.knex,
      { userId: id, expiresInSeconds, tokenSecret: options.tokenSecret, now },
      contextOf(res),
    );
    sendSuccess(res, 201, 'Access token minted: it is not stored, keep it', {
      accessToken,
      tokenType: 'Bearer' as const,
      expiresIn: expiresInSeconds,
      expiresAt: expiresAt.toISOString(),
      userId: id,
    });
  });

  return router;
}
