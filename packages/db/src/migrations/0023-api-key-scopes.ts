import type { Migration } from './migration.js';

/** Every scope at the time of this migration: what a key could do before keys had scopes. */
const ALL_SCOPES = 'read certify track keys webhooks admin';

/**
 * Scoped, bounded API keys (issue #26).
 *
 * - `scope`: what the key may do, an OAuth 2.0 scope parameter (space-separated words of
 *   `API_SCOPES` in @trustpoint/domain, canonical order). Keys made before get every scope, what
 *   they could do before; new keys always state theirs (no default).
 * - `parent_key_id`: the key a key was made with (by the key, or a token exchanged for it), null
 *   when a user's own token or an administrator made it. Revoking a key revokes its descendants in
 *   the same statement; a child never outlives nor exceeds its parent (checked when it is made).
 */
export const apiKeyScopes: Migration = {
  name: '0023-api-key-scopes',

  async up(knex) {
    await knex.schema.alterTable('api_keys', (table) => {
      table.text('scope').notNullable().defaultTo(ALL_SCOPES);
      table
        .text('parent_key_id')
        .nullable()
        .references('id')
        .inTable('api_keys')
        .onDelete('CASCADE');
      table.check(
        // No `?` in the pattern: knex would take it for a binding.
        "scope = '' or scope ~ '^(read|certify|track|keys|webhooks|admin)( (read|certify|track|keys|webhooks|admin))*$'",
        {},
        'api_keys_scope_check',
      );
      table.index(['parent_key_id'], 'api_keys_parent_idx');
    });
    await knex.raw('alter table api_keys alter column scope drop default');
  },

  async down(knex) {
    await knex.schema.alterTable('api_keys', (table) => {
      table.dropIndex(['parent_key_id'], 'api_keys_parent_idx');
      table.dropChecks(['api_keys_scope_check']);
      table.dropColumn('parent_key_id');
      table.dropColumn('scope');
    });
  },
};
