import type { Migration } from './migration.js';

/**
 * Partial indexes of the records not yet anchored, by certificate and by asset: they are few
 * (pending or failed ones), so listing certificates or assets by anchoring status finds them
 * without reading every record of the user.
 */
export const unanchoredRecords: Migration = {
  name: '0010-unanchored-records',

  async up(knex) {
    await knex.raw(
      'create index trustpoints_unanchored_idx on trustpoints (certificate_id) where transaction_hash is null',
    );
    await knex.raw(
      'create index evidences_unanchored_idx on evidences (asset) where transaction_hash is null',
    );
  },

  async down(knex) {
    await knex.raw('drop index evidences_unanchored_idx');
    await knex.raw('drop index trustpoints_unanchored_idx');
  },
};
