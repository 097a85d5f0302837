import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/** Tracked assets, who they are shared with, and the evidences registered for them. */
export const assetTracking: Migration = {
  name: '0004-asset-tracking',

  async up(knex) {
    await knex.schema.createTable('assets', (table) => {
      table.uuid('id').primary();
      table.text('track_id').notNullable().unique({ indexName: 'assets_track_id_unique' });
      table.text('user_id').notNullable().references('id').inTable('users');
      // The caller's own identifier, distinct from our primary key.
      table.text('asset_id').notNullable();
      table.jsonb('data').notNullable();
      table.specificType('asset_hash', 'char(64)').notNullable();
      table.text('network_id').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.unique(['user_id', 'asset_id'], { indexName: 'assets_user_asset_id_unique' });
      table.check(hexDigestCheck('asset_hash'), {}, 'assets_asset_hash_check');
    });
    await knex.raw('create index assets_list_idx on assets (user_id, created_at desc, id desc)');

    await knex.schema.createTable('asset_shares', (table) => {
      table.uuid('asset').notNullable().references('id').inTable('assets').onDelete('CASCADE');
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.primary(['asset', 'user_id']);
      // "Assets shared with me" reads by user.
      table.index('user_id', 'asset_shares_user_idx');
    });

    await knex.schema.createTable('evidences', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.uuid('asset').notNullable().references('id').inTable('assets');
      table.jsonb('metadata').notNullable().defaultTo(knex.raw("'{}'::jsonb"));
      // Seconds since the epoch, unlike the milliseconds of certificates: the on-chain key.
      table.bigInteger('timestamp').notNullable();
      table.text('user_owner').notNullable();
      table.specificType('hash', 'char(64)').notNullable();
      table.text('network_id').notNullable();
      table.text('smart_contract').nullable();
      table.text('transaction_hash').nullable();
      table.timestamp('anchored_at', { useTz: true }).nullable();
      table.bigInteger('anchor_record_id').nullable().references('id').inTable('anchor_records');
      table.unique(['asset', 'timestamp'], { indexName: 'evidences_asset_timestamp_unique' });
      table.check(hexDigestCheck('hash'), {}, 'evidences_hash_check');
      table.index('hash', 'evidences_hash_idx');
      table.index('anchor_record_id', 'evidences_anchor_record_idx', {
        predicate: knex.whereNotNull('anchor_record_id'),
      });
    });
  },

  async down(knex) {
    await knex.schema.dropTable('evidences');
    await knex.schema.dropTable('asset_shares');
    await knex.schema.dropTable('assets');
  },
};
