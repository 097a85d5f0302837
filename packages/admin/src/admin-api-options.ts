import type { AuthenticateOptions, IdempotencyKeys } from '@trustpoint/http';
import type { Knex } from 'knex';

/** What the admin API needs from the app that serves it. */
export interface AdminApiOptions {
  knex: Knex;
  /** The serving API's token checks: an admin uses the same tokens as on the other APIs. */
  auth: AuthenticateOptions;
  /** The secret the service's access tokens are signed with, to mint tokens for users. */
  tokenSecret: string;
  /** The networks the service has configured: a plan may name only these. */
  networkIds: () => readonly string[];
  /** Milliseconds since the epoch; a parameter so tests can pin time. */
  now?: () => number;
  /** `Idempotency-Key` support on API key creation, when given (the serving API's keys). */
  idempotency?: IdempotencyKeys | undefined;
}

export const ADMIN_API_BASE_PATH = '/admin/v1';
