import type { Migration } from './migration.js';

/**
 * State every process of a scaled-out service must share, which lived in process memory while one
 * process ran everything:
 *
 * - `rate_limit_counts`: the per-user (or per-address) request counts of the current fixed window,
 *   one row per key, so that N API processes enforce one limit. UNLOGGED: counts are worth nothing
 *   after a crash (PostgreSQL empties the table then), and a commit that touched only unlogged
 *   tables writes no WAL, so counting a request costs one cheap statement and no disk flush.
 * - `network_health`: what the anchoring processes last found of each network's registrar (funded
 *   or not), so that API processes, which do not anchor, answer 503 at once on a network that
 *   cannot pay for its next batch.
 */
export const sharedProcessState: Migration = {
  name: '0016-shared-process-state',

  async up(knex) {
    // knex's schema builder cannot declare an unlogged table.
    await knex.raw(`
      create unlogged table rate_limit_counts (
        key text primary key,
        -- Milliseconds since the epoch, on the service's clock like every protocol time.
        window_start bigint not null,
        hits integer not null constraint rate_limit_counts_hits_check check (hits >= 0)
      )`);
    await knex.raw(
      'create index rate_limit_counts_window_start_idx on rate_limit_counts (window_start)',
    );
    await knex.schema.createTable('network_health', (table) => {
      table.text('network_id').primary();
      table.text('state').notNullable();
      table.text('reason');
      // Decimal strings: wei amounts overflow bigint on some networks.
      table.text('balance_wei');
      table.text('required_wei');
      // When the anchorer looked at the balance.
      table.timestamp('checked_at', { useTz: true }).notNullable();
      table.check("state in ('ready', 'notReady')", {}, 'network_health_state_check');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('network_health');
    await knex.schema.dropTable('rate_limit_counts');
  },
};
