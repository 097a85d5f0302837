import { hexDigestCheck } from './hex-digest-check.js';
import type { Migration } from './migration.js';

/** Certificates, their trustpoints, and the content-addressed published files. */
export const certificates: Migration = {
  name: '0003-certificates',

  async up(knex) {
    await knex.schema.createTable('certificates', (table) => {
      table.uuid('id').primary();
      table.text('cert_id').notNullable().unique({ indexName: 'certificates_cert_id_unique' });
      table.text('user_id').notNullable().references('id').inTable('users');
      table
        .text('type')
        .notNullable()
        .checkIn(['content', 'file', 'asset', 'url'], 'certificates_type_check');
      table.text('name').notNullable();
      table.text('description').notNullable();
      table.jsonb('content').notNullable().defaultTo(knex.raw("'{}'::jsonb"));
      table.specificType('hash', 'char(64)').notNullable();
      table.specificType('file_hash', 'char(64)').nullable();
      table.bigInteger('issued_on').notNullable();
      table.bigInteger('expires').nullable();
      table.boolean('public').notNullable().defaultTo(false);
      table.text('pin_encrypted').nullable();
      table.text('external_id').nullable();
      table.bigInteger('revoked_at').nullable();
      table.text('network_id').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.unique(['user_id', 'hash'], { indexName: 'certificates_user_hash_unique' });
      table.unique(['user_id', 'external_id'], {
        indexName: 'certificates_user_external_id_unique',
        predicate: knex.whereNotNull('external_id'),
      });
      table.check(hexDigestCheck('hash'), {}, 'certificates_hash_check');
      table.check(
        `file_hash is null or ${hexDigestCheck('file_hash')}`,
        {},
        'certificates_file_hash_check',
      );
      table.index(['user_id', 'file_hash'], 'certificates_user_file_hash_idx', {
        predicate: knex.whereNotNull('file_hash'),
      });
    });
    // The list endpoint pages by (issued_on, id) newest first, optionally filtered by type or
    // access; knex's index builder cannot say `desc`.
    await knex.raw(
      'create index certificates_list_idx on certificates (user_id, issued_on desc, id desc)',
    );
    await knex.raw(
      'create index certificates_list_by_type_idx on certificates (user_id, type, issued_on desc, id desc)',
    );
    await knex.raw(
      'create index certificates_list_by_access_idx on certificates (user_id, public, issued_on desc, id desc)',
    );

    await knex.schema.createTable('trustpoints', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.uuid('certificate_id').notNullable().references('id').inTable('certificates');
      table.smallint('type').notNullable().checkBetween([0, 2], 'trustpoints_type_check');
      table.specificType('hash', 'char(64)').notNullable();
      table.bigInteger('timestamp').notNullable();
      table.text('network_id').notNullable();
      table.text('smart_contract').nullable();
      table.text('transaction_hash').nullable();
      table.timestamp('anchored_at', { useTz: true }).nullable();
      table.bigInteger('anchor_record_id').nullable().references('id').inTable('anchor_records');
      table.unique(['certificate_id', 'timestamp'], {
        indexName: 'trustpoints_certificate_timestamp_unique',
      });
      table.check(hexDigestCheck('hash'), {}, 'trustpoints_hash_check');
      table.index('anchor_record_id', 'trustpoints_anchor_record_idx', {
        predicate: knex.whereNotNull('anchor_record_id'),
      });
    });

    await knex.schema.createTable('published_files', (table) => {
      table.specificType('file_hash', 'char(64)').primary();
      table.bigInteger('size').notNullable();
      table.text('media_type').notNullable();
      table.text('storage_path').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.check(hexDigestCheck('file_hash'), {}, 'published_files_file_hash_check');
      table.check('size >= 0', {}, 'published_files_size_check');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('published_files');
    await knex.schema.dropTable('trustpoints');
    await knex.schema.dropTable('certificates');
  },
};
