import { knex, type Knex } from 'knex';
import { TypeOverrides, types } from 'pg';
import type { Database } from './database.js';
import { parseInt8 } from './parse-int8.js';

// Given to each connection rather than set on pg's global `types`, so that other users of `pg`
// in the same process keep their own parsing.
const typeParsers = new TypeOverrides();
typeParsers.setTypeParser(types.builtins.INT8, 'text', parseInt8);

export function openPostgres(
  url: string,
  poolMax: number,
  schema: string | undefined,
  applicationName: string | undefined,
): Database {
  const instance = knex({
    client: 'pg',
    connection: {
      connectionString: url,
      // Shown in pg_stat_activity: tells the service's pools apart for operators.
      application_name: applicationName ?? 'trustpoint',
      // knex types `format` as any string where pg narrows it to 'text' | 'binary'.
      types: typeParsers as Knex.PgCustomTypesConfig,
    },
    pool: { min: 0, max: poolMax },
    // knex prints every failed connection with its stack to the console; the error reaches the
    // caller anyway, which says it once (a start: DATABASE_URL and why; a request: a 503).
    log: {
      warn: (message: string) => {
        if (!message.startsWith('Acquire connection error')) console.warn(message);
      },
    },
    ...(schema === undefined ? {} : { searchPath: [schema] }),
  });
  return { knex: instance, backend: 'postgres', close: () => instance.destroy() };
}
