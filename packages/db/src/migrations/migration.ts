import type { Knex } from 'knex';

/** A schema change and its exact inverse. Never edit one that has shipped: add a new one. */
export interface Migration {
  readonly name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}
