import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { knex, type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import type { Database } from './database.js';
import { parseInt8 } from './parse-int8.js';

const inMemory = 'memory://';

interface QueryObject {
  method?: string;
}

/**
 * knex-pglite names the command of a result after knex's method, so a `del()` reports "DEL" where
 * pg reports "DELETE", and knex then returns the raw result instead of the deleted row count.
 * Renaming the method makes `delete()` return a count on both backends.
 */
// knex's typings leave out `processResponse`, which every dialect implements.
const PgliteDialect = ClientPGLite as unknown as new (config: Knex.Config) => Knex.Client & {
  processResponse(obj: QueryObject, runner: unknown): unknown;
};

class PgliteClient extends PgliteDialect {
  override processResponse(obj: QueryObject, runner: unknown): unknown {
    const method = obj.method === 'del' ? 'delete' : obj.method;
    return super.processResponse({ ...obj, method }, runner);
  }
}

export async function openPglite(dataDir: string, schema: string | undefined): Promise<Database> {
  if (!dataDir.startsWith(inMemory)) await mkdir(dataDir, { recursive: true });
  // PGlite returns int8 as a number when it fits and as a bigint otherwise: one rule for both
  // backends instead.
  const pglite = new PGlite({ dataDir, parsers: { [types.INT8]: parseInt8 } });
  // Fail here, with the engine's own message, when the data directory cannot be opened.
  await pglite.waitReady;
  const instance = knex({
    client: PgliteClient as unknown as typeof Knex.Client,
    // knex-pglite takes an existing engine through a connection function; knex's types do not
    // know that shape. Its pool is fixed at one connection: PGlite serves one session at a time.
    connection: (() => ({ pglite })) as unknown as Knex.Config['connection'],
    ...(schema === undefined ? {} : { searchPath: [schema] }),
  });
  return {
    knex: instance,
    backend: 'pglite',
    // Stops the engine even when the pool never opened its connection.
    async close() {
      await instance.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
