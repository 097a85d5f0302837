import type { Knex } from 'knex';

/** What a pass did to one table. */
export interface TableMaintenance {
  table: string;
  action: 'vacuum' | 'analyze';
  ms: number;
}

export interface EmbeddedMaintenanceOptions {
  /** Wait before the first pass. Default 10 s: the tables of an earlier run, soon after start. */
  firstAfterMs?: number;
  /** Wait between passes. Default 60 s, autovacuum's own `autovacuum_naptime`. */
  everyMs?: number;
  /** Told of each pass that did something. */
  onPass?: (done: readonly TableMaintenance[]) => void;
  /** Told of a pass that failed (the next one runs all the same). */
  onError?: (error: unknown) => void;
}

export interface EmbeddedMaintenance {
  /** Runs a pass now (after the one in progress, if any). */
  runNow(): Promise<TableMaintenance[]>;
  /** Stops the passes; waits for the one in progress. */
  stop(): Promise<void>;
}

interface TableActivity {
  table: string;
  reltuples: number;
  n_dead_tup: number;
  n_mod_since_analyze: number;
  /** Transactions since the table's oldest unfrozen row id (`age(relfrozenxid)`). */
  xid_age: number;
}

/** PostgreSQL's `autovacuum_freeze_max_age`: past it, a table is vacuumed to freeze its rows. */
const FREEZE_MAX_AGE = 200_000_000;

/**
 * PostgreSQL's autovacuum defaults (`autovacuum_vacuum_threshold` and `_scale_factor`, the same
 * for `analyze`, and the freeze age): a table is vacuumed once its dead rows pass a share of its
 * size, or its oldest row id grows old enough to wrap around; analysed once its changed rows pass
 * a share. Not autovacuum's vacuum of tables only inserted into (for index-only scans): on the
 * embedded engine it held every request for 0.3 s per 50,000 certificates.
 */
export function maintenanceDue(activity: TableActivity): TableMaintenance['action'] | undefined {
  const rows = Math.max(0, activity.reltuples);
  if (activity.n_dead_tup > 50 + 0.2 * rows || activity.xid_age > FREEZE_MAX_AGE) return 'vacuum';
  if (activity.n_mod_since_analyze > 50 + 0.1 * rows) return 'analyze';
  return undefined;
}

/**
 * One pass of what autovacuum would have done to the tables of the current schema: `VACUUM
 * (ANALYZE)` or `ANALYZE` each table past its threshold (`maintenanceDue`), one at a time.
 */
export async function maintainTables(knex: Knex): Promise<TableMaintenance[]> {
  // The engine's one backend sends its counts to the statistics at most once a second: now, so
  // that the rows written just before are counted.
  await knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await knex.raw<{ rows: TableActivity[] }>(
    `select s.relname as table, c.reltuples::float8 as reltuples,
            s.n_dead_tup::float8 as n_dead_tup,
            s.n_mod_since_analyze::float8 as n_mod_since_analyze,
            age(c.relfrozenxid)::float8 as xid_age
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()
      order by s.relname`,
  );
  const done: TableMaintenance[] = [];
  for (const activity of rows) {
    const action = maintenanceDue(activity);
    if (action === undefined) continue;
    const started = performance.now();
    await knex.raw(action === 'vacuum' ? 'vacuum (analyze) ??' : 'analyze ??', [activity.table]);
    done.push({ table: activity.table, action, ms: Math.round(performance.now() - started) });
  }
  return done;
}

/**
 * Autovacuum for the embedded engine, which has none: PGlite runs PostgreSQL as one backend,
 * without the background workers that vacuum and analyse. Without it the planner never learns a
 * table's size, and a settlement that finds a batch's trustpoints by index on PostgreSQL read the
 * whole table instead (on 49,000 trustpoints, a batch of 200 took 50 ms to settle against 12 ms
 * once analysed, and more with every certificate); dead row versions (two for each anchor record)
 * stayed for good. A pass every `everyMs`, in the service's own process: each statement holds the
 * engine while it runs, as any other.
 */
export function startEmbeddedMaintenance(
  knex: Knex,
  options: EmbeddedMaintenanceOptions = {},
): EmbeddedMaintenance {
  const everyMs = options.everyMs ?? 60_000;
  let stopped = false;
  let running: Promise<TableMaintenance[]> = Promise.resolve([]);
  let timer: NodeJS.Timeout | undefined;

  const pass = (): Promise<TableMaintenance[]> => {
    running = running.then(
      () => maintainTables(knex),
      () => maintainTables(knex),
    );
    return running;
  };
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      void pass()
        .then(
          (done) => {
            if (done.length > 0) options.onPass?.(done);
          },
          (error: unknown) => options.onError?.(error),
        )
        .finally(() => {
          schedule(everyMs);
        });
    }, ms);
    timer.unref();
  };
  schedule(options.firstAfterMs ?? 10_000);

  return {
    runNow: pass,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
