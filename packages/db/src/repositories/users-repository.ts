import type { Queryable } from '../queryable.js';

/** A caller of the APIs, identified by the subject of its JWT. */
export interface User {
  id: string;
  displayName: string;
  /** Allowed to request qualified signatures. */
  qualified: boolean;
  planId: string;
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
  created_at: Date;
}

const userColumns = ['id', 'display_name', 'qualified', 'plan_id', 'created_at'] as const;

function toUser(row: UserRow): User {
  return {
    id: row.id,
    displayName: row.display_name,
    qualified: row.qualified,
    planId: row.plan_id,
    createdAt: row.created_at,
  };
}

/** Creates the user with its credit balance, both or neither. */
export async function createUser(db: Queryable, user: NewUser): Promise<User> {
  return db.transaction(async (trx) => {
    const [row] = await trx('users')
      .insert({
        id: user.id,
        display_name: user.displayName,
        plan_id: user.planId,
        qualified: user.qualified ?? false,
      })
      .returning<UserRow[]>(userColumns);
    if (row === undefined) throw new Error(`inserting user ${user.id} returned no row`);
    await trx('credits').insert({ user_id: user.id, balance: user.initialCredits ?? 0 });
    return toUser(row);
  });
}

export async function findUser(db: Queryable, id: string): Promise<User | undefined> {
  const row = await db('users').where('id', id).first<UserRow | undefined>(userColumns);
  return row === undefined ? undefined : toUser(row);
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
  const [row] = await db('users').where('id', id).update(patch).returning<UserRow[]>(userColumns);
  return row === undefined ? undefined : toUser(row);
}
