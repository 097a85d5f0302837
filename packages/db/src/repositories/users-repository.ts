import { batchedLookup } from '../batcher.js';
import type { Queryable } from '../queryable.js';

/** A caller of the APIs, identified by the subject of its JWT. */
export interface User {
  id: string;
  displayName: string;
  /** Allowed to request qualified signatures. */
  qualified: boolean;
  planId: string;
  /**
   * The networks of the user's plan, read with the user: a request checks its network against
   * these instead of asking the database again.
   */
  planNetworkIds: string[];
  createdAt: Date;
}

export interface NewUser {
  id: string;
  displayName: string;
  planId: string;
  qualified?: boolean;
  /** Credits to start with. Default 0. */
  initialCredits?: number;
}

export type UserChanges = Partial<Pick<User, 'displayName' | 'qualified' | 'planId'>>;

interface UserRow {
  id: string;
  display_name: string;
  qualified: boolean;
  plan_id: string;
  plan_network_ids: string[];
  created_at: Date;
}

/** The user's columns and, in the same query, the network ids of the user's plan. */
function userColumns(db: Queryable) {
  return [
    'id',
    'display_name',
    'qualified',
    'plan_id',
    'created_at',
    db.raw(
      'array(select network_id from plan_networks where plan_networks.plan_id = users.plan_id order by network_id) as plan_network_ids',
    ),
  ];
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    displayName: row.display_name,
    qualified: row.qualified,
    planId: row.plan_id,
    planNetworkIds: row.plan_network_ids,
    createdAt: row.created_at,
  };
}

/** Creates the user with its credit balance, both or neither. */
export async function createUser(db: Queryable, user: NewUser): Promise<User> {
  return db.transaction(async (trx) => {
    await trx('users').insert({
      id: user.id,
      display_name: user.displayName,
      plan_id: user.planId,
      qualified: user.qualified ?? false,
    });
    await trx('credits').insert({ user_id: user.id, balance: user.initialCredits ?? 0 });
    const created = await findUser(trx, user.id);
    if (created === undefined) throw new Error(`user ${user.id} not found after inserting it`);
    return created;
  });
}

/** The user with the networks of its plan, in one query. */
export async function findUser(db: Queryable, id: string): Promise<User | undefined> {
  const row = await db('users').where('id', id).first<UserRow | undefined>(userColumns(db));
  return row === undefined ? undefined : toUser(row);
}

/** The users of these ids that exist, with their plans' networks, in one query. */
export async function findUsers(db: Queryable, ids: readonly string[]): Promise<Map<string, User>> {
  if (ids.length === 0) return new Map();
  const rows = await db('users')
    .whereIn('id', [...new Set(ids)])
    .select<UserRow[]>(userColumns(db));
  return new Map(rows.map((row) => [row.id, toUser(row)]));
}

/** `findUser` for a server's requests: lookups that arrive together are one query. */
export function batchedUserLookup(db: Queryable): (id: string) => Promise<User | undefined> {
  return batchedLookup((ids) => findUsers(db, ids));
}

/** Applies the changes given; returns the updated user, or undefined when there is none. */
export async function updateUser(
  db: Queryable,
  id: string,
  changes: UserChanges,
): Promise<User | undefined> {
  const patch: Partial<UserRow> = {};
  if (changes.displayName !== undefined) patch.display_name = changes.displayName;
  if (changes.qualified !== undefined) patch.qualified = changes.qualified;
  if (changes.planId !== undefined) patch.plan_id = changes.planId;
  if (Object.keys(patch).length === 0) return findUser(db, id);
  // Read back afterwards: a new plan brings other networks, which RETURNING cannot join.
  const updated = await db('users').where('id', id).update(patch);
  return updated === 0 ? undefined : findUser(db, id);
}
