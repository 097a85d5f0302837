import { authenticate, requireScope } from '@trustpoint/http';
import { Router } from 'express';
import type { AdminApiOptions } from './admin-api-options.js';
import { apiKeyRoutes } from './api-keys/api-key-routes.js';
import { auditRoutes } from './audit/audit-routes.js';
import { creditRoutes } from './credits/credit-routes.js';
import { planRoutes } from './plans/plan-routes.js';
import { requireAdmin } from './require-admin.js';
import { tokenRoutes } from './tokens/token-routes.js';
import { userRoutes } from './users/user-routes.js';

/**
 * The admin API's routes (mount at `/admin/v1`): users, plans, credits, tokens, API keys, the
 * audit log and the acknowledged records. Every route needs an admin's token: others get the 401s
 * of the other APIs or a 403. Each change is written to the audit log in its own transaction,
 * with the admin and the request id.
 */
export function adminRouter(options: AdminApiOptions): Router {
  const router = Router();
  // An administrator's API key (or a token from one) needs the `admin` scope too.
  router.use(authenticate(options.auth), requireAdmin, requireScope('admin'));
  router.use(
    userRoutes(options),
    creditRoutes(options),
    tokenRoutes(options),
    apiKeyRoutes(options),
    planRoutes(options),
    auditRoutes(options),
  );
  return router;
}
