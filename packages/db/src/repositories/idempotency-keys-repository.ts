import type { Queryable } from '../queryable.js';

/** A request's hold on its caller's key: every change names `owner`, so a lost hold changes nothing. */
export interface IdempotencyClaim {
  userId: string;
  key: string;
  owner: string;
}

/** An answer as it was sent, replayed to the retries of its request. */
export interface StoredResponse {
  status: number;
  /** The headers that matter to a client (Location, Preference-Applied, ...), by lower-case name. */
  headers: Record<string, string>;
  /** The body exactly as sent. */
  body: string;
}

export interface IdempotentRequest {
  userId: string;
  key: string;
  /** What makes two requests the same (method, path, query, body digest), as one digest. */
  fingerprint: string;
  /** A new, unique claim id for this request. */
  owner: string;
  now: number;
  /** How long the claim holds without being renewed, in milliseconds. */
  leaseMs: number;
  /** How long the key is kept, from its first request, in milliseconds. */
  retentionMs: number;
}

/** What a request finds when it claims its key. */
export type IdempotencyKeyClaim =
  /** The key is this request's: run it. */
  | { kind: 'claimed'; claim: IdempotencyClaim }
  /**
   * An earlier request with this key committed its change but its owner went silent before
   * storing the answer (it crashed, or its lease ran out): the key is this request's now, to
   * answer from `resource` (or to run again if `resource` is gone).
   */
  | { kind: 'recover'; claim: IdempotencyClaim; resource: string }
  /** The key was used for another request. */
  | { kind: 'mismatch' }
  /** An earlier request with this key is still running; its lease ends in `retryAfterMs`. */
  | { kind: 'running'; retryAfterMs: number }
  /** The earlier request's answer. */
  | { kind: 'completed'; response: StoredResponse };

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'committed' | 'completed';
  owner: string;
  lease_expires_at: string | number;
  resource: string | null;
  response_status: number | null;
  response_headers: Record<string, string> | string | null;
  response_body: string | null;
  expires_at: string | number;
}

function headersOf(value: KeyRow['response_headers']): Record<string, string> {
  if (value === null) return {};
  return typeof value === 'string' ? (JSON.parse(value) as Record<string, string>) : value;
}

/**
 * Claims a key for a request, or says what became of the earlier request that used it. One short
 * transaction of its own, committed before the request does anything: the row (`running`, with
 * the request's lease) is what concurrent retries in every process see.
 *
 * The row is locked while it is read and changed, so two retries cannot both take over a key
 * whose lease ran out. A row past its retention counts as absent (the prune may not have run).
 */
export async function claimIdempotencyKey(
  knex: Queryable,
  request: IdempotentRequest,
): Promise<IdempotencyKeyClaim> {
  const claim: IdempotencyClaim = {
    userId: request.userId,
    key: request.key,
    owner: request.owner,
  };
  const fresh = {
    fingerprint: request.fingerprint,
    state: 'running',
    owner: request.owner,
    lease_expires_at: request.now + request.leaseMs,
    resource: null,
    response_status: null,
    response_headers: null,
    response_body: null,
    created_at: request.now,
    expires_at: request.now + request.retentionMs,
  };
  return knex.transaction(async (trx) => {
    const inserted = await trx('idempotency_keys')
      .insert({ user_id: request.userId, key: request.key, ...fresh })
      .onConflict(['user_id', 'key'])
      .ignore()
      .returning('key');
    if (inserted.length > 0) return { kind: 'claimed', claim };

    const row = await trx('idempotency_keys')
      .where({ user_id: request.userId, key: request.key })
      .forUpdate()
      .first<KeyRow | undefined>();
    // Released (a 5xx) between the insert and the read: the insert now takes it.
    if (row === undefined || Number(row.expires_at) <= request.now) {
      await trx('idempotency_keys')
        .insert({ user_id: request.userId, key: request.key, ...fresh })
        .onConflict(['user_id', 'key'])
        .merge();
      return { kind: 'claimed', claim };
    }
    if (row.fingerprint !== request.fingerprint) return { kind: 'mismatch' };
    if (row.state === 'completed') {
      return {
        kind: 'completed',
        response: {
          status: row.response_status ?? 500,
          headers: headersOf(row.response_headers),
          body: row.response_body ?? '',
        },
      };
    }
    const leaseLeft = Number(row.lease_expires_at) - request.now;
    if (leaseLeft > 0) return { kind: 'running', retryAfterMs: leaseLeft };
    // Its owner went silent: this request takes the key over. The old owner, if only slow, can
    // no longer commit nor answer through it (every change names the owner).
    await trx('idempotency_keys')
      .where({ user_id: request.userId, key: request.key })
      .update({ owner: request.owner, lease_expires_at: request.now + request.leaseMs });
    return row.state === 'committed' && row.resource !== null
      ? { kind: 'recover', claim, resource: row.resource }
      : { kind: 'claimed', claim };
  });
}

/**
 * Claims, in one statement committed at once, the keys of a group of requests that no earlier
 * request used (the common case): true for each request whose key is now its own (`running`, its
 * lease from `now`), by position. False for a key that already has a row (a retry, a key past its
 * retention not yet pruned, or a second request with the same key in the group):
 * `claimIdempotencyKey` then says what became of it.
 */
export async function claimNewIdempotencyKeys(
  knex: Queryable,
  requests: readonly IdempotentRequest[],
): Promise<boolean[]> {
  if (requests.length === 0) return [];
  const result = await knex.raw<{ rows: { owner: string }[] }>(
    `insert into idempotency_keys
            (user_id, key, fingerprint, state, owner, lease_expires_at, created_at, expires_at)
     select r.user_id, r.key, r.fingerprint, 'running', r.owner, r.lease_expires_at, r.created_at,
            r.expires_at
       from jsonb_to_recordset(?::jsonb) as r(user_id text, key text, fingerprint text,
            owner text, lease_expires_at bigint, created_at bigint, expires_at bigint)
     on conflict (user_id, key) do nothing
     returning owner`,
    [
      JSON.stringify(
        requests.map((request) => ({
          user_id: request.userId,
          key: request.key,
          fingerprint: request.fingerprint,
          owner: request.owner,
          lease_expires_at: request.now + request.leaseMs,
          created_at: request.now,
          expires_at: request.now + request.retentionMs,
        })),
      ),
    ],
  );
  // Owners are unique per request: what the statement inserted, whatever else shared a key.
  const claimed = new Set(result.rows.map((row) => row.owner));
  return requests.map((request) => claimed.has(request.owner));
}

/**
 * Inside the transaction of the change: records that the change is made (`resource`: what the
 * answer is rebuilt from should the request die before storing it). False, and the caller must
 * roll back, when the claim was lost (its lease ran out and another request took the key over).
 * The row stays locked until the transaction ends, so no one takes it over meanwhile.
 */
export async function commitIdempotencyKey(
  trx: Queryable,
  claim: IdempotencyClaim,
  resource: string,
): Promise<boolean> {
  const [held] = await commitIdempotencyKeys(trx, [{ claim, resource }]);
  return held === true;
}

/**
 * `commitIdempotencyKey` for the requests of a group commit, in one statement: which of the
 * claims still held their key (now committed naming its resource), by position.
 */
export async function commitIdempotencyKeys(
  trx: Queryable,
  commits: readonly { claim: IdempotencyClaim; resource: string }[],
): Promise<boolean[]> {
  if (commits.length === 0) return [];
  const result = await trx.raw<{ rows: { owner: string }[] }>(keysCommittedUpdate(), [
    keyCommitsJson(commits),
  ]);
  // Owners are unique per request (as in `completeIdempotencyKeys`).
  const held = new Set(result.rows.map((row) => row.owner));
  return commits.map(({ claim }) => held.has(claim.owner));
}

/**
 * The update that commits keys, returning the owner of each claim that still held its key; its
 * one binding is `keyCommitsJson`. `condition` is a further filter: a statement that locks
 * balances first commits the keys only once it holds them (`BALANCES_HELD`).
 */
export function keysCommittedUpdate(condition = 'true'): string {
  return `update idempotency_keys k set state = 'committed', resource = c.resource
       from json_to_recordset(?::json) as c(user_id text, key text, owner text, resource text)
      where k.user_id = c.user_id and k.key = c.key and k.owner = c.owner
        and k.state in ('running', 'committed')
        and ${condition}
      returning k.owner`;
}

/** The claims to commit, each naming its resource, as `keysCommittedUpdate`'s binding. */
export function keyCommitsJson(
  commits: readonly { claim: IdempotencyClaim; resource: string }[],
): string {
  return JSON.stringify(
    commits.map(({ claim, resource }) => ({
      user_id: claim.userId,
      key: claim.key,
      owner: claim.owner,
      resource,
    })),
  );
}

/**
 * Inside a transaction that undoes a committed change (a creation withdrawn after its synchronous
 * wait timed out): whether the claim still holds its key, the row locked until the transaction
 * ends. A request that lost its key must not withdraw what it made: a retry that took the key
 * over may have answered from it already. Once this returns true, no retry can take the key over
 * before the withdrawal commits, and a retry afterwards finds the change gone and runs again.
 */
export async function holdsIdempotencyKey(
  trx: Queryable,
  claim: IdempotencyClaim,
): Promise<boolean> {
  const row = await trx('idempotency_keys')
    .where({ user_id: claim.userId, key: claim.key, owner: claim.owner })
    .whereNot('state', 'completed')
    .forUpdate()
    .first<{ key: string } | undefined>('key');
  return row !== undefined;
}

/** Stores the answer, replayed from now on. False when the claim was lost meanwhile. */
export async function completeIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
  response: StoredResponse,
): Promise<boolean> {
  const [stored] = await completeIdempotencyKeys(db, [{ claim, response }]);
  return stored === true;
}

/**
 * `completeIdempotencyKey` for the answers of several requests, in one statement: which were
 * stored (their claims still held), by position.
 */
export async function completeIdempotencyKeys(
  db: Queryable,
  answers: readonly { claim: IdempotencyClaim; response: StoredResponse }[],
): Promise<boolean[]> {
  if (answers.length === 0) return [];
  const result = await db.raw<{ rows: { owner: string }[] }>(
    `update idempotency_keys k
        set state = 'completed', response_status = a.status, response_headers = a.headers,
            response_body = a.body
       from jsonb_to_recordset(?::jsonb) as a(user_id text, key text, owner text,
            status integer, headers jsonb, body text)
      where k.user_id = a.user_id and k.key = a.key and k.owner = a.owner
        and k.state <> 'completed'
      returning k.owner`,
    [
      JSON.stringify(
        answers.map(({ claim, response }) => ({
          user_id: claim.userId,
          key: claim.key,
          owner: claim.owner,
          status: response.status,
          headers: response.headers,
          body: response.body,
        })),
      ),
    ],
  );
  const stored = new Set(result.rows.map((row) => row.owner));
  return answers.map(({ claim }) => stored.has(claim.owner));
}

/** Extends the claim's lease while its request runs; false when the claim was lost. */
export async function renewIdempotencyLease(
  db: Queryable,
  claim: IdempotencyClaim,
  leaseExpiresAt: number,
): Promise<boolean> {
  const updated = await db('idempotency_keys')
    .where({ user_id: claim.userId, key: claim.key, owner: claim.owner })
    .whereNot('state', 'completed')
    .update({ lease_expires_at: leaseExpiresAt });
  return updated > 0;
}

/**
 * Lets the key be tried again after a failure (a 5xx): a request that committed nothing gives the
 * key up; one that committed keeps its row with its lease ended, so the next retry answers from
 * what was made (or runs again if that is gone).
 */
export async function releaseIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
  now: number,
): Promise<void> {
  const own = { user_id: claim.userId, key: claim.key, owner: claim.owner };
  await db('idempotency_keys').where(own).where('state', 'running').delete();
  await db('idempotency_keys')
    .where(own)
    .where('state', 'committed')
    .update({ lease_expires_at: now });
}

/** A recovered key whose resource is gone (withdrawn after a 503): its request runs again. */
export async function restartIdempotencyKey(
  db: Queryable,
  claim: IdempotencyClaim,
): Promise<boolean> {
  const updated = await db('idempotency_keys')
    .where({ user_id: claim.userId, key: claim.key, owner: claim.owner })
    .where('state', 'committed')
    .update({ state: 'running', resource: null });
  return updated > 0;
}

/**
 * Deletes up to `maxRows` keys past their retention; returns how many. Rows another transaction
 * holds are skipped (left for a later prune) rather than waited for.
 */
export async function pruneIdempotencyKeys(
  db: Queryable,
  now: number,
  maxRows = 1_000,
): Promise<number> {
  const result = await db.raw<{ rows: unknown[] }>(
    `delete from idempotency_keys where (user_id, key) in (
       select user_id, key from idempotency_keys
        where expires_at <= ?
        order by expires_at
        limit ?
        for update skip locked)
     returning 1`,
    [now, maxRows],
  );
  return result.rows.length;
}
