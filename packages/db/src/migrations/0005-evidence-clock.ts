import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/**
 * Unique evidence timestamps per assetHash. The on-chain key of an evidence is
 * (assetHash, timestamp in seconds), and two users may create assets with the same assetId and
 * data, hence the same assetHash: uniqueness per asset row is not enough. `evidence_clocks` hands
 * out the next free second per assetHash (one atomic upsert on a row per assetHash), and the
 * unique (asset_hash, timestamp) index on `evidences` is the safety net behind it.
 */
export const evidenceClock: Migration = {
  name: '0005-evidence-clock',

  async up(knex) {
    await knex.schema.createTable('evidence_clocks', (table) => {
      table.specificType('asset_hash', 'char(64)').primary();
      // Seconds since the epoch: the last timestamp given to an evidence of this assetHash.
      table.bigInteger('last_timestamp').notNullable();
      table.check(hexDigestCheck('asset_hash'), {}, 'evidence_clocks_asset_hash_check');
    });

    // Added nullable, filled from the assets, then required: works on a table that has rows.
    await knex.schema.alterTable('evidences', (table) => {
      table.specificType('asset_hash', 'char(64)').nullable();
    });
    await knex.raw(
      'update evidences set asset_hash = assets.asset_hash from assets where assets.id = evidences.asset',
    );
    await knex.schema.alterTable('evidences', (table) => {
      table.dropNullable('asset_hash');
      table.unique(['asset_hash', 'timestamp'], {
        indexName: 'evidences_asset_hash_timestamp_unique',
      });
    });
    await knex.raw(
      `insert into evidence_clocks (asset_hash, last_timestamp)
       select asset_hash, max(timestamp) from evidences group by asset_hash`,
    );
  },

  async down(knex) {
    await knex.schema.alterTable('evidences', (table) => {
      table.dropUnique(['asset_hash', 'timestamp'], 'evidences_asset_hash_timestamp_unique');
      table.dropColumn('asset_hash');
    });
    await knex.schema.dropTable('evidence_clocks');
  },
};
