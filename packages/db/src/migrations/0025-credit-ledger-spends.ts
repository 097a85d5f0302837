import type { Knex } from 'knex';
import type { Migration } from './migration.js';

/** The sequence behind `audit_log.id`, schema-qualified. */
async function auditSequence(knex: Knex): Promise<string> {
  const result = await knex.raw<{ rows: { name: string | null }[] }>(
    `select pg_get_serial_sequence('audit_log', 'id') as name`,
  );
  const name = result.rows[0]?.name;
  if (name === null || name === undefined) throw new Error('audit_log.id has no sequence');
  return name;
}

/** A sequence name as an SQL string literal, for DDL (which takes no bound parameters). */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * The credit ledger shows spends. Each credit spent (a certificate, signature or re-anchoring, an
 * asset, an evidence) already has its record, written in the transaction that spends it: its
 * audit entry (`certificate.create`, `certificate.sign`, `certificate.reanchor`, `asset.create`,
 * `evidence.add`, by the spender). The ledger reads spends from there rather than writing a row
 * per creation (see `listCreditMovements`), so this migration adds no work to creations:
 *
 * - `credit_movements.id` now comes from the audit log's sequence: a spend is listed under its
 *   audit entry's id, so every row of a user's ledger has an id of its own. Movements recorded so
 *   far are renumbered above every audit id (their order kept; nothing stores their ids).
 * - `refund_of`: the id of the spend (audit entry) a refund gives back; null for refunds recorded
 *   before this migration.
 */
export const creditLedgerSpends: Migration = {
  name: '0025-credit-ledger-spends',

  async up(knex) {
    const sequence = await auditSequence(knex);
    await knex.raw('alter table credit_movements add column refund_of bigint');
    await knex.raw('alter table credit_movements alter column id drop identity');
    // Above every audit id in use, those of transactions still open included (the sequence's
    // last value), so that no renumbered movement meets one; the sequence never moves back.
    const shifted = await knex.raw<{ rows: { shift: number | string }[] }>(
      `select greatest(coalesce(pg_sequence_last_value(?::regclass), 0),
                       coalesce((select max(id) from audit_log), 0),
                       coalesce((select max(id) from credit_movements), 0)) as shift`,
      [sequence],
    );
    const shift = Number(shifted.rows[0]?.shift ?? 0);
    if (shift > 0) {
      await knex.raw('update credit_movements set id = id + ?', [shift]);
      await knex.raw(
        `select setval(?::regclass, (select max(id) from credit_movements))
          where exists (select 1 from credit_movements)`,
        [sequence],
      );
    }
    await knex.raw(
      `alter table credit_movements alter column id set default nextval(${literal(sequence)}::regclass)`,
    );
  },

  async down(knex) {
    await knex.raw('alter table credit_movements alter column id drop default');
    await knex.raw('alter table credit_movements alter column id add generated always as identity');
    await knex.raw(
      `select setval(pg_get_serial_sequence('credit_movements', 'id'), max(id))
         from credit_movements having count(*) > 0`,
    );
    await knex.raw('alter table credit_movements drop column refund_of');
  },
};
