import type { Migration } from './migration.js';

/** Plans (which networks a user may use), users (JWT subjects) and their credits. */
export const accounts: Migration = {
  name: '0001-accounts',

  async up(knex) {
    await knex.schema.createTable('plans', (table) => {
      table.text('id').primary();
      table.text('name').notNullable();
    });

    await knex.schema.createTable('plan_networks', (table) => {
      table.text('plan_id').notNullable().references('id').inTable('plans').onDelete('CASCADE');
      table.text('network_id').notNullable();
      table.primary(['plan_id', 'network_id']);
    });

    await knex.schema.createTable('users', (table) => {
      table.text('id').primary();
      table.text('display_name').notNullable();
      table.boolean('qualified').notNullable().defaultTo(false);
      table.text('plan_id').notNullable().references('id').inTable('plans');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.index('plan_id');
    });

    await knex.schema.createTable('credits', (table) => {
      table.text('user_id').primary().references('id').inTable('users').onDelete('CASCADE');
      table.bigInteger('balance').notNullable().defaultTo(0);
      table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      table.check('balance >= 0', {}, 'credits_balance_check');
    });
  },

  async down(knex) {
    await knex.schema.dropTable('credits');
    await knex.schema.dropTable('users');
    await knex.schema.dropTable('plan_networks');
    await knex.schema.dropTable('plans');
  },
};
