import type { Migration } from './migration.js';

/**
 * Administration: users get a role ('user' or 'admin') and can be disabled; credits get a ledger
 * (`credit_movements`: grants, sets, refunds, each with its actor, reason, request and the balance
 * after); every admin action and every state change of the APIs goes to `audit_log`.
 *
 * The audit log is append-only: a statement trigger refuses UPDATE, DELETE and TRUNCATE, whoever
 * connects (dropping the table, as `down` does, is a schema change and stays possible). Entries
 * are written by the code that makes the change, in its transaction, one multi-row insert per
 * transaction; actors and targets are plain text, without foreign keys, so that the log outlives
 * what it names and costs no lookups on the hot path of certificate creation. Indexes are few for
 * the same reason: b-trees for the three filters that look up by equality, newest first, and a
 * BRIN index on the time (rows arrive in time order, so it stays tiny and cheap to maintain).
 *
 * Spending a credit is not a movement (a certificate is its record); the balances that exist when
 * the ledger starts are recorded as `initial` movements so that each user's history adds up.
 */
export const administration: Migration = {
  name: '0014-administration',

  async up(knex) {
    await knex.schema.alterTable('users', (table) => {
      table.text('role').notNullable().defaultTo('user');
      table.timestamp('disabled_at', { useTz: true }).nullable();
      table.check(`role in ('user', 'admin')`, {}, 'users_role_check');
    });

    await knex.schema.createTable('credit_movements', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
      table.text('kind').notNullable();
      // The signed change of the balance.
      table.bigInteger('amount').notNullable();
      table.bigInteger('balance_after').notNullable();
      // Null for the service's own movements (refunds).
      table.text('actor_id').nullable();
      table.text('reason').nullable();
      table.text('request_id').nullable();
      table.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.check(
        `kind in ('initial', 'grant', 'set', 'refund')`,
        {},
        'credit_movements_kind_check',
      );
      table.index(['user_id', 'id'], 'credit_movements_user_idx');
    });
    await knex.raw(`
      insert into credit_movements (user_id, kind, amount, balance_after, reason)
      select user_id, 'initial', balance, balance, 'balance when the ledger started'
        from credits order by user_id`);

    await knex.schema.createTable('audit_log', (table) => {
      table.specificType('id', 'bigint generated always as identity').primary();
      table.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.text('actor_id').nullable();
      table.text('request_id').nullable();
      table.text('action').notNullable();
      table.text('target').notNullable();
      table.jsonb('changes').notNullable().defaultTo('{}');
      table.index(['actor_id', 'id'], 'audit_log_actor_idx');
      table.index(['action', 'id'], 'audit_log_action_idx');
      table.index(['target', 'id'], 'audit_log_target_idx');
    });
    await knex.raw('create index audit_log_at_idx on audit_log using brin (at)');
    await knex.raw(`
      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log is append-only: % refused', tg_op
          using errcode = 'insufficient_privilege';
      end $$`);
    await knex.raw(`
      create trigger audit_log_append_only before update or delete or truncate on audit_log
        for each statement execute function audit_log_append_only()`);
  },

  async down(knex) {
    await knex.schema.dropTable('audit_log');
    await knex.raw('drop function audit_log_append_only()');
    await knex.schema.dropTable('credit_movements');
    await knex.schema.alterTable('users', (table) => {
      table.dropChecks(['users_role_check']);
      table.dropColumn('disabled_at');
      table.dropColumn('role');
    });
  },
};
