import type { Knex } from 'knex';

import type { Queryable } from '../queryable.js';
import type { ChangeContext } from './change-context.js';

/** One change for the audit log: who (and in which request) did what to which thing. */
export interface NewAuditEntry extends ChangeContext {
  /** What was done, `<thing>.<verb>`: `certificate.create`, `user.disable`, ... */
  action: string;
  /** What it was done to, `<kind>:<id>`: `user:alice`, `certificate:did:...`. */
  target: string;
  /** What changed, small and without secrets. */
  changes?: Record<string, unknown>;
}

export interface AuditEntry extends ChangeContext {
  id: number;
  at: Date;
  action: string;
  target: string;
  changes: Record<string, unknown>;
}

interface AuditRow {
  id: number;
  at: Date;
  actor_id: string | null;
  request_id: string | null;
  action: string;
  target: string;
  changes: Record<string, unknown>;
}

/**
 * Appends entries to the audit log in one statement (a batch of certificates is one insert, one
 * JSON parameter however many there are). Pass the transaction of the change: an entry commits
 * with its change or not at all.
 */
export async function recordAudit(
  trx: Queryable,
  entries: readonly NewAuditEntry[],
): Promise<void> {
  const write = auditEntriesInsert(trx, entries);
  if (write !== undefined) await write;
}

/** `recordAudit` as a write to send with others (`writeTogether`); undefined without entries. */
export function auditEntriesInsert(
  trx: Queryable,
  entries: readonly NewAuditEntry[],
): Knex.Raw | undefined {
  if (entries.length === 0) return undefined;
  return trx.raw(
    `insert into audit_log (actor_id, request_id, action, target, changes)
     select actor_id, request_id, action, target, coalesce(changes, '{}')
       from jsonb_to_recordset(?::jsonb)
         as entry(actor_id text, request_id text, action text, target text, changes jsonb)`,
    [JSON.stringify(entries.map(auditEntryRow))],
  );
}

/** An entry as the audit log's columns, for an insert from a JSON recordset. */
export function auditEntryRow(entry: NewAuditEntry) {
  return {
    actor_id: entry.actorId,
    request_id: entry.requestId,
    action: entry.action,
    target: entry.target,
    changes: entry.changes ?? {},
  };
}

export interface AuditFilter {
  actorId?: string;
  action?: string;
  /** Entries on this target; `user:<id>` also matches the entries on that user's API keys. */
  target?: string;
  /** Entries at or after this time. */
  since?: Date;
  /** Entries before this time. */
  until?: Date;
  offset: number;
  limit: number;
}

/** A page of the log, newest first, and the number of entries matching the filter. */
export async function listAuditEntries(
  db: Queryable,
  filter: AuditFilter,
): Promise<{ entries: AuditEntry[]; total: number }> {
  const matching = () => {
    const query = db('audit_log');
    if (filter.actorId !== undefined) query.where('actor_id', filter.actorId);
    if (filter.action !== undefined) query.where('action', filter.action);
    if (filter.target !== undefined) {
      const { target } = filter;
      // A user's API keys are recorded under `api-key:<id>`, their owner in the changes.
      const owner = /^user:(.+)$/s.exec(target)?.[1];
      query.where((matches) => {
        matches.where('target', target);
        if (owner !== undefined) {
          matches.orWhere((key) => {
            key.where('target', 'like', 'api-key:%').whereRaw("changes->>'userId' = ?", [owner]);
          });
        }
      });
    }
    if (filter.since !== undefined) query.where('at', '>=', filter.since);
    if (filter.until !== undefined) query.where('at', '<', filter.until);
    return query;
  };
  const [rows, counted] = await Promise.all([
    matching()
      .orderBy('id', 'desc')
      .offset(filter.offset)
      .limit(filter.limit)
      .select<AuditRow[]>('id', 'at', 'actor_id', 'request_id', 'action', 'target', 'changes'),
    matching().count<{ count: number | string }[]>({ count: '*' }),
  ]);
  return {
    entries: rows.map((row) => ({
      id: row.id,
      at: row.at,
      actorId: row.actor_id,
      requestId: row.request_id,
      action: row.action,
      target: row.target,
      changes: row.changes,
    })),
    total: Number(counted[0]?.count ?? 0),
  };
}
