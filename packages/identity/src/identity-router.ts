import {
  authenticate,
  currentCredential,
  currentUser,
  requireScope,
  type AuthenticateOptions,
  type IdempotencyKeys,
} from '@trustpoint/http';
import type { Router } from 'express';
import { Router as createRouter } from 'express';

import { apiKeysRouter } from './api-keys-router.js';
import type { Identities } from './identities.js';
import { tokenEndpointRouter } from './token-endpoint-router.js';

export interface IdentityRouterOptions {
  identities: Identities;
  /** The API's authentication (its `tokens` should be `identities`). */
  auth: AuthenticateOptions;
  maxKeysPerUser?: number;
  tokenFailuresPerMinute?: number;
  now?: () => number;
  /** `Idempotency-Key` support on key creation, when given. */
  idempotency?: IdempotencyKeys | undefined;
}

/**
 * The identity routes both APIs mount, the same on each (one table, so a key made on one works on
 * the other): the caller's API keys at `/api-keys` and the token endpoint at `/oauth/token`.
 */
export function identityRouter(options: IdentityRouterOptions): Router {
  const router = createRouter();
  router.use(
    apiKeysRouter({
      knex: options.identities.knex,
      // Every operation on keys needs the `keys` scope, reads included: keys are credentials.
      guard: [authenticate(options.auth), requireScope('keys')],
      owner: (_req, res) => currentUser(res).id,
      actor: (_req, res) => currentUser(res).id,
      creator: (_req, res) => currentCredential(res),
      ...(options.maxKeysPerUser === undefined ? {} : { maxKeysPerUser: options.maxKeysPerUser }),
      ...(options.now === undefined ? {} : { now: options.now }),
      idempotency: options.idempotency,
    }),
  );
  router.use(
    tokenEndpointRouter({
      identities: options.identities,
      ...(options.tokenFailuresPerMinute === undefined
        ? {}
        : { failuresPerMinute: options.tokenFailuresPerMinute }),
    }),
  );
  return router;
}
