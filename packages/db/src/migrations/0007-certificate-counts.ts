import type { Migration } from './migration.js';

/**
 * How many certificates each user has, per type and access: the `pagination.total` of the list
 * endpoint without a time window. Counting a user's rows instead grows with the rows (tens of
 * milliseconds at a million); these counters answer in one index read.
 *
 * Statement-level triggers keep them exact in the same transaction as every insert, delete or
 * update of certificates, whatever code path writes them: each statement adds its net change per
 * (user, type, access) once, so a bulk import costs one counter update, not one per row. The
 * changes are applied in key order, so concurrent changes in opposite directions cannot deadlock.
 * They add no contention of their own: a user's creations already take that user's credit row.
 */
export const certificateCounts: Migration = {
  name: '0007-certificate-counts',

  async up(knex) {
    await knex.schema.createTable('certificate_counts', (table) => {
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('type').notNullable();
      table.boolean('public').notNullable();
      table.bigInteger('total').notNullable();
      table.primary(['user_id', 'type', 'public']);
    });
    // Each branch names only the transition tables its trigger has: plpgsql plans per statement.
    const applyDelta = (changes: string) => `
        insert into certificate_counts (user_id, type, public, total)
          select user_id, type, public, sum(n) from (${changes}) as changes
          group by user_id, type, public having sum(n) <> 0
          order by user_id, type, public
          on conflict (user_id, type, public)
          do update set total = certificate_counts.total + excluded.total;`;
    const added = 'select user_id, type, public, 1 as n from new_rows';
    const removed = 'select user_id, type, public, -1 as n from old_rows';
    await knex.raw(`
      create function certificate_counts_follow() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then${applyDelta(added)}
        elsif tg_op = 'DELETE' then${applyDelta(removed)}
        else${applyDelta(`${added} union all ${removed}`)}
        end if;
        return null;
      end
      $$`);
    // A trigger with transition tables cannot list columns; updates that change neither type nor
    // access add nothing to delta.
    await knex.raw(`
      create trigger certificates_counted_insert after insert on certificates
        referencing new table as new_rows
        for each statement execute function certificate_counts_follow()`);
    await knex.raw(`
      create trigger certificates_counted_update after update on certificates
        referencing old table as old_rows new table as new_rows
        for each statement execute function certificate_counts_follow()`);
    await knex.raw(`
      create trigger certificates_counted_delete after delete on certificates
        referencing old table as old_rows
        for each statement execute function certificate_counts_follow()`);
    await knex.raw(`
      insert into certificate_counts (user_id, type, public, total)
        select user_id, type, public, count(*) from certificates group by user_id, type, public`);
  },

  async down(knex) {
    await knex.raw('drop trigger certificates_counted_delete on certificates');
    await knex.raw('drop trigger certificates_counted_update on certificates');
    await knex.raw('drop trigger certificates_counted_insert on certificates');
    await knex.raw('drop function certificate_counts_follow()');
    await knex.schema.dropTable('certificate_counts');
  },
};
