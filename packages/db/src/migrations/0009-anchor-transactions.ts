import type { Migration } from './migration.js';

/**
 * Every signed transaction of an anchoring batch: the first one and each fee-raising replacement
 * at the same nonce, stored before it is sent. Only one of them can be mined (they share the
 * nonce); the batch settles from that one and the others are marked dropped. After a crash, all
 * the stored transactions of an unsettled batch are sent again. `anchor_batches.raw_transaction`
 * and `transaction_hash` keep naming the batch's latest (once settled: its mined) transaction.
 */
export const anchorTransactions: Migration = {
  name: '0009-anchor-transactions',

  async up(knex) {
    await knex.schema.createTable('anchor_transactions', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.bigInteger('batch_id').notNullable().references('id').inTable('anchor_batches');
      table.text('raw_transaction').notNullable();
      table.text('transaction_hash').notNullable().unique({
        indexName: 'anchor_transactions_hash_unique',
      });
      table
        .text('status')
        .notNullable()
        .defaultTo('signed')
        .checkIn(['signed', 'mined', 'dropped'], 'anchor_transactions_status_check');
      // The chain's latest block when an anchorer first saw this transaction unmined (set then,
      // and again after a reorg): replacement counts `replaceAfterBlocks` from here.
      table.bigInteger('pending_since_block').nullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.index(['batch_id', 'id'], 'anchor_transactions_batch_idx');
    });
    // Batches signed before this migration had exactly one transaction: the batch's own.
    await knex.raw(`
      insert into anchor_transactions (batch_id, raw_transaction, transaction_hash, status)
      select id, raw_transaction, transaction_hash,
             case status when 'signed' then 'signed' when 'anchored' then 'mined' else 'dropped' end
        from anchor_batches
       order by id`);
  },

  async down(knex) {
    await knex.schema.dropTable('anchor_transactions');
  },
};
