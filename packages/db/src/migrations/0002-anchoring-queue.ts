import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/**
 * The durable outbox of the anchoring engine: records to anchor, the signed batch transactions
 * that carry them, and the next nonce of each signer on each network.
 */
export const anchoringQueue: Migration = {
  name: '0002-anchoring-queue',

  async up(knex) {
    await knex.schema.createTable('anchor_batches', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.text('network_id').notNullable();
      table
        .text('kind')
        .notNullable()
        .checkIn(['trustpoint', 'evidence'], 'anchor_batches_kind_check');
      table.text('signer').notNullable();
      table.bigInteger('nonce').notNullable();
      table.text('raw_transaction').notNullable();
      table.text('transaction_hash').notNullable();
      table
        .text('status')
        .notNullable()
        .defaultTo('signed')
        .checkIn(['signed', 'anchored', 'failed'], 'anchor_batches_status_check');
      table.bigInteger('block_number').nullable();
      table.text('error').nullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.unique(['network_id', 'signer', 'nonce'], {
        indexName: 'anchor_batches_signer_nonce_unique',
      });
      // Resuming after a restart starts from the batches still in flight.
      table.index(['network_id', 'id'], 'anchor_batches_signed_idx', {
        predicate: knex.whereRaw("status = 'signed'"),
      });
    });

    await knex.schema.createTable('anchor_records', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.text('network_id').notNullable();
      table
        .text('kind')
        .notNullable()
        .checkIn(['trustpoint', 'evidence'], 'anchor_records_kind_check');
      // The on-chain key: 0x + 64 hex characters.
      table.specificType('record_key', 'char(66)').notNullable();
      table.specificType('hash', 'char(64)').notNullable();
      table.smallint('trustpoint_type').nullable();
      table
        .text('status')
        .notNullable()
        .defaultTo('queued')
        .checkIn(
          ['queued', 'batched', 'anchored', 'cancelled', 'failed'],
          'anchor_records_status_check',
        );
      // Why a record failed: the registry refused it (a different hash already under its key).
      table.text('error').nullable();
      table.bigInteger('batch_id').nullable().references('id').inTable('anchor_batches');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.unique(['network_id', 'kind', 'record_key'], {
        indexName: 'anchor_records_key_unique',
      });
      table.check("record_key ~ '^0x[0-9a-f]{64}$'", {}, 'anchor_records_record_key_check');
      table.check(hexDigestCheck('hash'), {}, 'anchor_records_hash_check');
      // A trustpoint needs its type on-chain; an evidence has none. `coalesce` because a check
      // that evaluates to null passes.
      table.check(
        "coalesce((kind = 'trustpoint' and trustpoint_type between 0 and 2) or (kind = 'evidence' and trustpoint_type is null), false)",
        {},
        'anchor_records_trustpoint_type_check',
      );
      // The engine's hot path: the oldest queued records of one network and kind.
      table.index(['network_id', 'kind', 'id'], 'anchor_records_queued_idx', {
        predicate: knex.whereRaw("status = 'queued'"),
      });
      table.index('batch_id', 'anchor_records_batch_idx', {
        predicate: knex.whereNotNull('batch_id'),
      });
    });

    await knex.schema.createTable('signer_nonces', (table) => {
      table.text('network_id').notNullable();
      table.text('signer').notNullable();
      table.bigInteger('next_nonce').notNullable();
      table.primary(['network_id', 'signer']);
      table.check('next_nonce >= 0', {}, 'signer_nonces_next_nonce_check');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('signer_nonces');
    await knex.schema.dropTable('anchor_records');
    await knex.schema.dropTable('anchor_batches');
  },
};
