import type { Migration } from './migration.js';

/**
 * A third kind of anchored record, `status`: a certificate's revocation written to the network's
 * status registry (`TrustPointStatusRegistry.registerRevocations`), under `keccak256(certID)`, so
 * that a verifier holding only the certificate as issued finds it with one `eth_call`. Its
 * `record_timestamp` is the Revocation trustpoint's timestamp (ms) and its `hash` that
 * trustpoint's hash; it has no trustpoint type.
 *
 * `status_backfills` keeps, per network, how far the anchoring engine has got in queuing the
 * status of certificates revoked before their network had a status registry (or before this
 * migration): the id of the last Revocation trustpoint looked at, and how many statuses it queued. The engine carries the backfill out in pages and
 * can stop anywhere; the unique key of `anchor_records` makes a page done twice harmless.
 */
export const revocationStatusRecords: Migration = {
  name: '0020-revocation-status-records',

  async up(knex) {
    await knex.raw('alter table anchor_batches drop constraint anchor_batches_kind_check');
    await knex.raw(
      "alter table anchor_batches add constraint anchor_batches_kind_check check (kind in ('trustpoint', 'evidence', 'status'))",
    );
    await knex.raw('alter table anchor_records drop constraint anchor_records_kind_check');
    await knex.raw(
      "alter table anchor_records add constraint anchor_records_kind_check check (kind in ('trustpoint', 'evidence', 'status'))",
    );
    await knex.raw(
      'alter table anchor_records drop constraint anchor_records_trustpoint_type_check',
    );
    await knex.raw(
      `alter table anchor_records add constraint anchor_records_trustpoint_type_check check (
         coalesce((kind = 'trustpoint' and trustpoint_type between 0 and 2)
                  or (kind in ('evidence', 'status') and trustpoint_type is null), false))`,
    );
    await knex.schema.createTable('status_backfills', (table) => {
      table.text('network_id').primary();
      // The highest trustpoints.id (a Revocation) whose status this network has queued.
      table.bigInteger('last_trustpoint_id').notNullable().defaultTo(0);
      table.bigInteger('queued').notNullable().defaultTo(0);
      table.timestamp('completed_at', { useTz: true }).nullable();
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },

  async down(knex) {
    await knex.schema.dropTable('status_backfills');
    await knex('anchor_records').where({ kind: 'status' }).delete();
    await knex('anchor_batches').where({ kind: 'status' }).delete();
    await knex.raw(
      'alter table anchor_records drop constraint anchor_records_trustpoint_type_check',
    );
    await knex.raw(
      `alter table anchor_records add constraint anchor_records_trustpoint_type_check check (
         coalesce((kind = 'trustpoint' and trustpoint_type between 0 and 2)
                  or (kind = 'evidence' and trustpoint_type is null), false))`,
    );
    await knex.raw('alter table anchor_records drop constraint anchor_records_kind_check');
    await knex.raw(
      "alter table anchor_records add constraint anchor_records_kind_check check (kind in ('trustpoint', 'evidence'))",
    );
    await knex.raw('alter table anchor_batches drop constraint anchor_batches_kind_check');
    await knex.raw(
      "alter table anchor_batches add constraint anchor_batches_kind_check check (kind in ('trustpoint', 'evidence'))",
    );
  },
};
