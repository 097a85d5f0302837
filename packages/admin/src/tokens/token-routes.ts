import { sendSuccess, validate } from '@trustpoint/http';
import { Router } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import { mintTokenBodySchema, userIdParamsSchema } from '../admin-schemas.js';
import { contextOf } from '../change-context.js';
import { refused } from '../admin-errors.js';
import { credentialBounds } from '../credential-bounds.js';
import { mintUserToken } from './mint-user-token.js';

/** `/users/{id}/tokens`: access tokens minted for a user (not stored). */
export function tokenRoutes(options: AdminApiOptions): Router {
  const router = Router();
  const now = options.now ?? Date.now;

  router.post('/users/:id/tokens', async (req, res) => {
    const { id } = validate(userIdParamsSchema, req.params, 'path');
    const asked = validate(mintTokenBodySchema, req.body ?? {}, 'body').expiresInSeconds;
    // A token asked with a key or scopes, for any account: the credential's scopes, tied to its
    // key, and no longer than it lives.
    const bounds = credentialBounds(res);
    const left =
      bounds?.expiresAt === undefined || bounds.expiresAt === null
        ? undefined
        : Math.floor((bounds.expiresAt.getTime() - now()) / 1_000);
    if (left !== undefined && left < 1) {
      throw refused('path.id', 'The credential asking expires within a second');
    }
    const expiresInSeconds = left === undefined ? asked : Math.min(asked, left);
    const { accessToken, expiresAt } = await mintUserToken(
      options.knex,
      {
        userId: id,
        expiresInSeconds,
        tokenSecret: options.tokenSecret,
        now,
        ...(bounds === undefined
          ? {}
          : {
              scopes: bounds.scopes,
              ...(bounds.apiKeyId === undefined ? {} : { apiKeyId: bounds.apiKeyId }),
            }),
      },
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
