import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/**
 * API keys of machine clients. Only the SHA-256 of a key is kept: the key itself is shown once,
 * when it is made, and a key is found by its digest (a high-entropy secret needs no slow hash).
 * Revoked keys stay, so a list or an audit can still name them.
 */
export const apiKeys: Migration = {
  name: '0013-api-keys',

  async up(knex) {
    await knex.schema.createTable('api_keys', (table) => {
      // The public part of the key (`tp_live_<id>...`), also its client_id at the token endpoint.
      table.text('id').primary();
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('name').notNullable();
      table.text('secret_hash').notNullable().unique({ indexName: 'api_keys_secret_hash_unique' });
      // Who made it: the user, or an administrator for them; no foreign key, so it outlives them.
      table.text('created_by').nullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.timestamp('expires_at', { useTz: true }).nullable();
      table.timestamp('last_used_at', { useTz: true }).nullable();
      table.timestamp('revoked_at', { useTz: true }).nullable();
      table.text('revoked_by').nullable();
      table.check(hexDigestCheck('secret_hash'), {}, 'api_keys_secret_hash_check');
      table.index(['user_id', 'created_at'], 'api_keys_user_idx');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('api_keys');
  },
};
