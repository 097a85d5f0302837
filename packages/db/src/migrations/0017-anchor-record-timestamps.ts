import type { Migration } from './migration.js';

/**
 * The timestamp each record's key was derived from (a trustpoint's in milliseconds, an evidence's in
 * seconds). Batch registries file a record under the time bucket of its timestamp, so that one
 * `eth_call` with nothing but (id, timestamp) finds it; the engine needs the timestamp to send it.
 * Records queued before this column existed take it from their trustpoint or evidence.
 */
export const anchorRecordTimestamps: Migration = {
  name: '0017-anchor-record-timestamps',

  async up(knex) {
    await knex.schema.alterTable('anchor_records', (table) => {
      table.bigInteger('record_timestamp').nullable();
    });
    await knex.raw(`
      update anchor_records r set record_timestamp = t.timestamp
        from trustpoints t where t.anchor_record_id = r.id and r.record_timestamp is null`);
    await knex.raw(`
      update anchor_records r set record_timestamp = v.timestamp
        from evidences v where v.anchor_record_id = r.id and r.record_timestamp is null`);
  },

  async down(knex) {
    await knex.schema.alterTable('anchor_records', (table) => {
      table.dropColumn('record_timestamp');
    });
  },
};
