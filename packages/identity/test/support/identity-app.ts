import { randomBytes, randomUUID } from 'node:crypto';
import { batchedUserLookup, createUser, savePlan, type Queryable, type User } from '@trustpoint/db';
import {
  authenticate,
  createApiApp,
  currentUser,
  mintAccessToken,
  sendSuccess,
} from '@trustpoint/http';
import { Router } from 'express';
import pino from 'pino';

import { Identities, identityRouter, type IdentitiesOptions } from '../../src/index.js';

export const JWT_SECRET = randomBytes(32).toString('base64url');

/** The base path of the test API, as `/cert/v2` is the certificate API's. */
export const BASE = '/test/v2';

export interface TestApiOptions extends Partial<Omit<IdentitiesOptions, 'knex'>> {
  /** Users `authenticate` treats as absent, as it will treat disabled users. */
  disabled?: Set<string>;
  tokenFailuresPerMinute?: number;
  /** Express's `trust proxy`, so a test can send from several addresses (X-Forwarded-For). */
  trustProxy?: boolean;
}

/**
 * An API as the apps build theirs: every token kind through `Identities`, the identity routes, and
 * `GET /me` behind `authenticate`.
 */
export function testApi(knex: Queryable, options: TestApiOptions = {}) {
  const identities = new Identities({ knex, jwtSecret: JWT_SECRET, ...options });
  const lookup = batchedUserLookup(knex);
  const findUser = async (id: string): Promise<User | undefined> =>
    options.disabled?.has(id) === true ? undefined : lookup(id);
  const auth = { tokens: identities, findUser };
  const me = Router().get('/me', authenticate(auth), (_req, res) => {
    sendSuccess(res, 200, 'Current user', { id: currentUser(res).id });
  });
  return createApiApp({
    basePath: BASE,
    docs: { document: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } },
    routers: [
      identityRouter({
        identities,
        auth,
        ...(options.tokenFailuresPerMinute === undefined
          ? {}
          : { tokenFailuresPerMinute: options.tokenFailuresPerMinute }),
      }),
      me,
    ],
    logger: pino({ level: 'silent' }),
    tokens: identities,
    trustProxy: options.trustProxy ?? false,
  });
}

/** A new user on a new plan; returns its id and a service token for it. */
export async function newUser(knex: Queryable, id = `user-${randomUUID()}`) {
  await savePlan(knex, { id: `plan-${id}`, name: 'plan', networkIds: [] });
  await createUser(knex, { id, displayName: id, planId: `plan-${id}` });
  const token = await mintAccessToken(JWT_SECRET, { subject: id, ttlSeconds: 600 });
  return { id, token };
}

export function authenticationError(message: string) {
  return { statusCode: 401, type: 'Authentication Error', message };
}
