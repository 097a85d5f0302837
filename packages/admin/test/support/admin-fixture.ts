import { randomBytes, randomUUID } from 'node:crypto';
import {
  batchedUserLookup,
  createUser,
  listAuditEntries,
  savePlan,
  type AuditEntry,
  type DatabaseBackend,
  type UserRole,
} from '@trustpoint/db';
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import { createApiApp, mintAccessToken } from '@trustpoint/http';
import { Identities } from '@trustpoint/identity';
import type { Express } from 'express';
import pino from 'pino';
import { ADMIN_API_BASE_PATH, adminApiDocument, adminRouter } from '../../src/index.js';

/** The networks the fixture's service has configured. */
export const CONFIGURED_NETWORKS = ['31337', '11155111'];

export interface AdminFixture {
  db: TestDatabase;
  app: Express;
  secret: string;
  /** A new user with a plan of its own, and the Authorization header of a token for it. */
  givenUser(options?: {
    role?: UserRole;
    credits?: number;
  }): Promise<{ id: string; planId: string; auth: { Authorization: string } }>;
  /** The audit entries on a target, newest first. */
  auditOf(target: string): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

/** The admin API as the certificate API mounts it, on a fresh database. */
export async function startAdminApi(backend: DatabaseBackend): Promise<AdminFixture> {
  const db = await openTestDatabase(backend);
  const secret = randomBytes(32).toString('base64url');
  // As the APIs take them: the service's tokens and API keys.
  const tokens = new Identities({ knex: db.knex, jwtSecret: secret });
  const auth = { tokens, findUser: batchedUserLookup(db.knex) };
  const app = createApiApp({
    basePath: '/cert/v2',
    docs: { document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } },
    routers: [],
    mounts: [
      {
        basePath: ADMIN_API_BASE_PATH,
        docs: { document: adminApiDocument() },
        routers: [
          adminRouter({
            knex: db.knex,
            auth,
            tokenSecret: secret,
            networkIds: () => CONFIGURED_NETWORKS,
          }),
        ],
      },
    ],
    logger: pino({ level: 'silent' }),
    tokens,
  });
  return {
    db,
    app,
    secret,
    async givenUser({ role = 'user', credits = 0 } = {}) {
      const id = `${role}-${randomUUID()}`;
      const planId = `plan-${id}`;
      await savePlan(db.knex, { id: planId, name: 'plan', networkIds: ['31337'] });
      await createUser(db.knex, { id, displayName: id, planId, role, initialCredits: credits });
      const token = await mintAccessToken(secret, { subject: id, ttlSeconds: 600 });
      return { id, planId, auth: { Authorization: `Bearer ${token}` } };
    },
    async auditOf(target) {
      return (await listAuditEntries(db.knex, { target, offset: 0, limit: 100 })).entries;
    },
    close: () => db.close(),
  };
}
