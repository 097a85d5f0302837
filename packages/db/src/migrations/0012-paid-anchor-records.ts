import type { Migration } from './migration.js';

/**
 * Who paid a credit for each record to anchor, so that a record the chain refuses for good (it
 * ends `failed`) gives its credit back. Null for free records (revocations, the Signature that
 * comes with a qualified certificate). No foreign key: the column is written on the hot path of
 * every creation, and a refund to a user who no longer exists simply finds no balance.
 */
export const paidAnchorRecords: Migration = {
  name: '0012-paid-anchor-records',

  async up(knex) {
    await knex.schema.alterTable('anchor_records', (table) => {
      table.text('paid_by').nullable();
    });
  },

  async down(knex) {
    await knex.schema.alterTable('anchor_records', (table) => {
      table.dropColumn('paid_by');
    });
  },
};
