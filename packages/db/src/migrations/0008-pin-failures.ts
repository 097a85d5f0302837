import type { Migration } from './migration.js';

/**
 * Failed PIN attempts, counted per certificate and per client address in fixed windows, so that a
 * PIN cannot be guessed by trying them all. Kept in the database rather than in process memory:
 * every API process sharing it counts against the same budgets. A row is one budget's current
 * window; rows whose window has ended are pruned (`window_ends_at` is indexed for that).
 */
export const pinFailures: Migration = {
  name: '0008-pin-failures',

  async up(knex) {
    await knex.schema.createTable('pin_failures', (table) => {
      // 'certificate' (subject: the certificate's id) or 'address' (subject: the client address).
      table.text('scope').notNullable();
      table.text('subject').notNullable();
      table.integer('failures').notNullable();
      // Milliseconds since the epoch, on the service's clock like every protocol time.
      table.bigInteger('window_ends_at').notNullable();
      table.primary(['scope', 'subject']);
      table.index(['window_ends_at'], 'pin_failures_window_ends_at_idx');
      table.check("scope in ('certificate', 'address')", {}, 'pin_failures_scope_check');
      table.check('failures >= 0', {}, 'pin_failures_failures_check');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('pin_failures');
  },
};
