import type { Migration } from './migration.js';

/**
 * `idempotency_keys`: the `Idempotency-Key` request headers of creating requests (IETF httpapi
 * draft, Stripe's contract), one row per caller and key, kept for the retention window. In the
 * database rather than in process memory, so every API process agrees and a restart loses nothing.
 *
 * A row goes `running` (a request owns it: `owner`, until `lease_expires_at` unless renewed) →
 * `committed` (the change committed in the same transaction as this state; `resource` says what
 * was made, and the answer can be rebuilt from it if its owner dies before storing the answer) →
 * `completed` (the answer, replayed to every retry). A 5xx answer deletes a `running` row: the
 * request may be tried again.
 */
export const idempotencyKeys: Migration = {
  name: '0021-idempotency-keys',

  async up(knex) {
    await knex.schema.createTable('idempotency_keys', (table) => {
      table.text('user_id').notNullable().references('id').inTable('users').onDelete('cascade');
      table.text('key').notNullable();
      // SHA-256 of the request (method, path, query, body digest): the same key with another
      // request is refused.
      table.text('fingerprint').notNullable();
      table.text('state').notNullable();
      // The claim of the request that runs it; every change of a row names its owner, so a request
      // whose lease was taken over can no longer commit (a fencing token).
      table.text('owner').notNullable();
      // Milliseconds since the epoch, on the service's clock like every protocol time.
      table.bigInteger('lease_expires_at').notNullable();
      table.text('resource');
      table.integer('response_status');
      table.jsonb('response_headers');
      // The body exactly as it was sent (text, not jsonb, which would reorder its members).
      table.text('response_body');
      table.bigInteger('created_at').notNullable();
      table.bigInteger('expires_at').notNullable();
      table.primary(['user_id', 'key']);
      table.index(['expires_at'], 'idempotency_keys_expires_at_idx');
      table.check(
        "state in ('running', 'committed', 'completed')",
        {},
        'idempotency_keys_state_check',
      );
      table.check(
        "state <> 'completed' or (response_status is not null and response_body is not null)",
        {},
        'idempotency_keys_completed_check',
      );
    });
  },

  async down(knex) {
    await knex.schema.dropTable('idempotency_keys');
  },
};
