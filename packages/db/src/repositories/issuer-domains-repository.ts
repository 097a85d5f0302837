import type { Queryable } from '../queryable.js';
import { lockUser } from './users-repository.js';

/** A domain a user claims to issue in the name of, and what its last DNS check found. */
export interface IssuerDomainRecord {
  userId: string;
  /** Lowercase, punycode. */
  domain: string;
  /** Milliseconds since the epoch. */
  claimedAt: number;
  /** When a check last found the DNS record naming the service and the user; null otherwise. */
  provenAt: number | null;
  checkedAt: number | null;
  /** What the last check found, in one sentence. */
  checkDetail: string | null;
}

interface IssuerDomainRow {
  user_id: string;
  domain: string;
  claimed_at: string | number;
  proven_at: string | number | null;
  checked_at: string | number | null;
  check_detail: string | null;
}

const millis = (value: string | number | null): number | null =>
  value === null ? null : Number(value);

function fromRow(row: IssuerDomainRow): IssuerDomainRecord {
  return {
    userId: row.user_id,
    domain: row.domain,
    claimedAt: Number(row.claimed_at),
    provenAt: millis(row.proven_at),
    checkedAt: millis(row.checked_at),
    checkDetail: row.check_detail,
  };
}

/** Thrown by `claimIssuerDomain` for a user who holds `max` claims already. */
export class IssuerDomainLimitError extends Error {
  override readonly name = 'IssuerDomainLimitError';
  constructor(readonly max: number) {
    super(`a user claims at most ${String(max)} issuer domains`);
  }
}

/**
 * Records a user's claim of a domain, unproven; a claim already made is kept as it is. Returns
 * the claim as stored, and whether this call made it. Inside a transaction (`trx`), under the
 * user's lock, so that concurrent claims cannot all pass `max` (`IssuerDomainLimitError`).
 */
export async function claimIssuerDomain(
  trx: Queryable,
  claim: { userId: string; domain: string; now: number; max: number },
): Promise<{ record: IssuerDomainRecord; created: boolean }> {
  // The user's row, as key creations take it: concurrent claims count in turn.
  await lockUser(trx, claim.userId);
  const existing = await findIssuerDomain(trx, claim.userId, claim.domain);
  if (existing !== undefined) return { record: existing, created: false };
  const counted = await trx('issuer_domains')
    .where('user_id', claim.userId)
    .count<{ count: string | number }[]>({ count: '*' });
  if (Number(counted[0]?.count ?? 0) >= claim.max) throw new IssuerDomainLimitError(claim.max);
  const inserted = await trx<IssuerDomainRow>('issuer_domains')
    .insert({ user_id: claim.userId, domain: claim.domain, claimed_at: claim.now })
    .onConflict(['user_id', 'domain'])
    .ignore()
    .returning('*');
  const [row] = inserted;
  if (row !== undefined) return { record: fromRow(row), created: true };
  const claimed = await findIssuerDomain(trx, claim.userId, claim.domain);
  if (claimed === undefined) throw new Error('a claimed domain vanished while it was claimed');
  return { record: claimed, created: false };
}

/** One of the user's claims; undefined when they made none for that domain. */
export async function findIssuerDomain(
  db: Queryable,
  userId: string,
  domain: string,
): Promise<IssuerDomainRecord | undefined> {
  const row = await db<IssuerDomainRow>('issuer_domains')
    .where({ user_id: userId, domain })
    .first();
  return row === undefined ? undefined : fromRow(row);
}

/** The user's claims, the most recently claimed first. */
export async function listIssuerDomains(
  db: Queryable,
  userId: string,
): Promise<IssuerDomainRecord[]> {
  const rows = await db<IssuerDomainRow>('issuer_domains')
    .where({ user_id: userId })
    .orderBy([
      { column: 'claimed_at', order: 'desc' },
      { column: 'domain', order: 'asc' },
    ]);
  return rows.map(fromRow);
}

/**
 * What a DNS check of a claim found: proven (`provenAt` the time of the check) or not (null: a
 * record removed since unproves it). Returns the claim as updated; undefined when it is gone.
 */
export async function recordIssuerDomainCheck(
  db: Queryable,
  check: { userId: string; domain: string; proven: boolean; now: number; detail: string },
): Promise<IssuerDomainRecord | undefined> {
  const rows = await db<IssuerDomainRow>('issuer_domains')
    .where({ user_id: check.userId, domain: check.domain })
    .update({
      proven_at: check.proven ? check.now : null,
      checked_at: check.now,
      check_detail: check.detail,
    })
    .returning('*');
  const [row] = rows;
  return row === undefined ? undefined : fromRow(row);
}

/** Withdraws a claim: later certificates no longer name the domain. False when there was none. */
export async function releaseIssuerDomain(
  db: Queryable,
  userId: string,
  domain: string,
): Promise<boolean> {
  const deleted = await db('issuer_domains').where({ user_id: userId, domain }).delete();
  return deleted > 0;
}
