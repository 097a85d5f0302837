import type { Migration } from './migration.js';

/**
 * How many certificates each user has, per type and access: the `pagination.total` of the list
 * endpoint without a time window. Counting a user's rows instead grows with the rows (tens of
 * milliseconds at a million); these counters answer in one index read.
 *
 * A trigger keeps them exact in the same transaction as every insert, delete or change of
 * type/access, whatever code path writes the certificates. It adds no contention of its own:
 * a user's creations already take that user's credit row lock.
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
      table.check('total >= 0', {}, 'certificate_counts_total_check');
    });
    await knex.raw(`
      create function certificate_counts_follow() returns trigger language plpgsql as $$
      begin
        -- Two counter rows change on an access or type change: take them in key order, so
        -- that concurrent changes in opposite directions cannot deadlock.
        if tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.type, old.public) < (new.type, new.public)) then
          update certificate_counts set total = total - 1
            where user_id = old.user_id and type = old.type and public = old.public;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          insert into certificate_counts (user_id, type, public, total)
            values (new.user_id, new.type, new.public, 1)
            on conflict (user_id, type, public)
            do update set total = certificate_counts.total + 1;
        end if;
        if tg_op = 'UPDATE' and (old.type, old.public) >= (new.type, new.public) then
          update certificate_counts set total = total - 1
            where user_id = old.user_id and type = old.type and public = old.public;
        end if;
        return null;
      end
      $$`);
    await knex.raw(`
      create trigger certificates_counted
        after insert or delete or update of user_id, type, public on certificates
        for each row execute function certificate_counts_follow()`);
    await knex.raw(`
      insert into certificate_counts (user_id, type, public, total)
        select user_id, type, public, count(*) from certificates group by user_id, type, public`);
  },

  async down(knex) {
    await knex.raw('drop trigger certificates_counted on certificates');
    await knex.raw('drop function certificate_counts_follow()');
    await knex.schema.dropTable('certificate_counts');
  },
};
