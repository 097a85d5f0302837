import type { Migration } from './migration.js';

/**
 * Asset hash version 2 (issue #24). Version 1 (`doubleHash(JCS({assetId, data}))`) is the same
 * for every user with that assetId and data, so their assets shared the on-chain key space
 * (assetHash, second) and, through `evidence_clocks`, one clock. Version 2 also covers the asset's
 * trackID and owner: each asset has keys and a clock of its own.
 *
 * - `hash_version`: 1 for every asset stored so far (their hash and evidences stay as they are),
 *   2 for new ones.
 * - A version 2 assetHash belongs to one asset: a unique index says so, behind the hash itself.
 *   Version 1 hashes stay shared, and so do their clocks.
 */
export const assetHashVersion: Migration = {
  name: '0024-asset-hash-version',

  async up(knex) {
    await knex.schema.alterTable('assets', (table) => {
      table.smallint('hash_version').notNullable().defaultTo(1);
      table.check('hash_version in (1, 2)', {}, 'assets_hash_version_check');
    });
    await knex.raw(
      'create unique index assets_v2_asset_hash_unique on assets (asset_hash) where hash_version = 2',
    );
  },

  async down(knex) {
    await knex.raw('drop index assets_v2_asset_hash_unique');
    await knex.schema.alterTable('assets', (table) => {
      table.dropChecks(['assets_hash_version_check']);
      table.dropColumn('hash_version');
    });
  },
};
