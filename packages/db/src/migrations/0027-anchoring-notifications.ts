import type { Migration } from './migration.js';

/**
 * The channels, after the schema of the tables (`<schema>.anchor_queued`): databases in schemas
 * of one server (tests) do not hear each other.
 */
export const ANCHOR_QUEUED_CHANNEL = 'anchor_queued';
export const ANCHOR_SETTLED_CHANNEL = 'anchor_settled';

/**
 * Notifications between the processes that share a database (issue #28): a statement that queues
 * records tells `<schema>.anchor_queued`, one that settles records (anchored, failed) tells
 * `<schema>.anchor_settled`. PostgreSQL delivers a notification when its transaction commits,
 * once however many statements of it notified, and never for a rollback; so an anchoring process
 * that listens looks at the queue as soon as another process's records are there, and an API
 * process answers its waiting requests as soon as their records are settled, instead of at their
 * next look. The notifications carry nothing: the listeners read the queue as they always do.
 */
export const anchoringNotifications: Migration = {
  name: '0027-anchoring-notifications',

  async up(knex) {
    await knex.raw(`
      create function anchor_records_notify_queued() returns trigger language plpgsql as $$
      begin
        perform pg_notify(tg_table_schema || '.${ANCHOR_QUEUED_CHANNEL}', '');
        return null;
      end
      $$`);
    await knex.raw(`
      create trigger anchor_records_queued after insert on anchor_records
        for each statement execute function anchor_records_notify_queued()`);
    await knex.raw(`
      create function anchor_records_notify_settled() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from settled_rows where status in ('anchored', 'failed')) then
          perform pg_notify(tg_table_schema || '.${ANCHOR_SETTLED_CHANNEL}', '');
        end if;
        return null;
      end
      $$`);
    await knex.raw(`
      create trigger anchor_records_settled after update on anchor_records
        referencing new table as settled_rows
        for each statement execute function anchor_records_notify_settled()`);
  },

  async down(knex) {
    await knex.raw('drop trigger anchor_records_settled on anchor_records');
    await knex.raw('drop function anchor_records_notify_settled()');
    await knex.raw('drop trigger anchor_records_queued on anchor_records');
    await knex.raw('drop function anchor_records_notify_queued()');
  },
};
