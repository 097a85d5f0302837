import { join } from 'node:path';
import {
  createDatabase,
  createUser,
  findAnyAdministrator,
  pendingMigrations,
  recordAudit,
  savePlan,
  takeBootstrapLock,
} from '@trustpoint/db';
import { createApiKey } from '@trustpoint/identity';
import type { LauncherConfig } from './launcher-config.js';
import { databaseUrlError } from './role-config-error.js';
import { servicePidHolding } from './service-pid-file.js';

/** The plan the first administrator is given: no networks (an administrator adds them). */
export const ADMINISTRATORS_PLAN_ID = 'administrators';

export interface AdminToBootstrap {
  userId: string;
  displayName: string;
}

export type BootstrapOutcome =
  | { created: true; userId: string; apiKeyId: string; apiKey: string }
  | { created: false; existingAdmin: string };

/**
 * `trustpoint init-admin`: on a database with no administrator (a fresh PostgreSQL behind `serve`
 * roles, where nothing creates the local one), creates one, with a plan of no networks, and an
 * API key that never expires, shown once. Does nothing when any administrator exists (disabled
 * ones too), so it runs exactly once however often, and however many at once, it is started.
 */
export async function bootstrapAdmin(
  config: LauncherConfig,
  admin: AdminToBootstrap,
): Promise<BootstrapOutcome> {
  if (config.databaseUrl === undefined) {
    const holder = await servicePidHolding(config.dataDir);
    if (holder !== undefined) {
      throw new Error(
        `the embedded database in ${config.dataDir} is open in a running service (pid ${String(holder)}), which has its local administrator already: use its token (trustpoint admin finds it)`,
      );
    }
  }
  const database = await createDatabase(
    config.databaseUrl === undefined
      ? { dataDir: join(config.dataDir, 'pgdata'), migrate: false }
      : {
          url: config.databaseUrl,
          migrate: false,
          poolMax: 1,
          applicationName: 'trustpoint-init-admin',
        },
  );
  try {
    const pending = await pendingMigrations(database.knex).catch((error: unknown) => {
      throw databaseUrlError(error, config.databaseUrl);
    });
    if (pending.length > 0) {
      throw new Error(
        `the database lacks ${String(pending.length)} migration(s): run trustpoint migrate first`,
      );
    }
    return await database.knex.transaction(async (trx) => {
      // Whichever init-admin takes it first creates the administrator; the others then find it.
      await takeBootstrapLock(trx);
      const existingAdmin = await findAnyAdministrator(trx);
      if (existingAdmin !== undefined) return { created: false, existingAdmin };
      await savePlan(trx, { id: ADMINISTRATORS_PLAN_ID, name: 'Administrators', networkIds: [] });
      await createUser(trx, {
        id: admin.userId,
        displayName: admin.displayName,
        planId: ADMINISTRATORS_PLAN_ID,
        role: 'admin',
      });
      const made = await createApiKey(trx, {
        userId: admin.userId,
        name: 'init-admin',
        expiresAt: null,
        createdBy: admin.userId,
      });
      await recordAudit(trx, [
        {
          actorId: admin.userId,
          requestId: null,
          action: 'user.create',
          target: `user:${admin.userId}`,
          changes: { role: 'admin', planId: ADMINISTRATORS_PLAN_ID, by: 'trustpoint init-admin' },
        },
        {
          actorId: admin.userId,
          requestId: null,
          action: 'api-key.create',
          target: `api-key:${made.apiKey.id}`,
          changes: { userId: admin.userId, name: made.apiKey.name, expiresAt: null },
        },
      ]);
      return { created: true, userId: admin.userId, apiKeyId: made.apiKey.id, apiKey: made.key };
    });
  } finally {
    await database.close();
  }
}
