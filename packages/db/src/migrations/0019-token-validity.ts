import type { Migration } from './migration.js';

/**
 * `users.tokens_valid_after`: the user's bearer tokens issued up to this instant are refused for
 * good, so enabling a disabled user does not bring back the tokens it had when it was disabled.
 * Set when a user is disabled; users disabled before this column existed take their disabling time.
 */
export const tokenValidity: Migration = {
  name: '0019-token-validity',

  async up(knex) {
    await knex.schema.alterTable('users', (table) => {
      table.timestamp('tokens_valid_after', { useTz: true }).nullable();
    });
    await knex('users')
      .whereNotNull('disabled_at')
      .update({ tokens_valid_after: knex.ref('disabled_at') });
  },

  async down(knex) {
    await knex.schema.alterTable('users', (table) => {
      table.dropColumn('tokens_valid_after');
    });
  },
};
