import { batchedLookup } from '../batcher.js';
import { prepared, type Queryable } from '../queryable.js';
import type { ChangeContext } from './change-context.js';
import { recordCreditMovements } from './credit-movements-repository.js';
import { userIdsJson } from './credits-repository.js';

export const USER_ROLES = ['user', 'admin'] as const;

/** What a user may do: every user calls the APIs; an admin also reaches the admin API. */
export type UserRole = (typeof USER_ROLES)[number];

/** A caller of the APIs, identified by the subject of its JWT. */
export interface User {
  id: string;
  displayName: string;
  /** Allowed to request qualified signatures. */
  qualified: boolean;
  role: UserRole;
  planId: string;
  /**
   * The networks of the user's plan, read with the user: a request checks its network against
   * these instead of asking the database again.
   */
  planNetworkIds: string[];
  createdAt: Date;
  /**
   * Bearer tokens of the user issued up to this instant are refused, whatever the user's state
   * now: set when the user was last disabled. Absent when the user never was.
   */
  tokensValidAfter?: Date;
  /**
   * The issuer domain the user proved last (`provenIssuerDomainsOf`), read with the user: what a
   * new certificate names as its `issuerDomain`. Absent when the user proved none.
   */
  issuerDomain?: string;
}

/** A user as the admin API sees it: disabled ones too, with the credit balance. */
export interface UserAccount extends User {
  /** When the user was disabled; null for an active user. */
  disabledAt: Date | null;
  /** The credit balance (0 when the user has no balance row). */
  credits: number;
}

export interface NewUser {
  id: string;
  displayName: string;
  planId: string;
  qualified?: boolean;
  /** Default 'user'. */
  role?: UserRole;
  /** Credits to start with. Default 0. */
  initialCredits?: number;
}

export type UserChanges = Partial<Pick<User, 'displayName' | 'qualified' | 'planId' | 'role'>>;

interface UserRow {
  id: string;
  display_name: string;
  qualified: boolean;
  role: UserRole;
  plan_id: string;
  plan_network_ids: string[];
  created_at: Date;
  tokens_valid_after: Date | null;
  issuer_domain: string | null;
}

interface UserAccountRow extends UserRow {
  disabled_at: Date | null;
  credits: number | null;
}

/**
 * The user's columns and, in the same query, the network ids of the user's plan and the issuer
 * domain the user proved last (ordered as `provenIssuerDomainsOf` orders them).
 */
function userColumns(db: Queryable) {
  return [
    'id',
    'display_name',
    'qualified',
    'role',
    'plan_id',
    'created_at',
    'tokens_valid_after',
    db.raw(
      'array(select network_id from plan_networks where plan_networks.plan_id = users.plan_id order by network_id) as plan_network_ids',
    ),
    db.raw(
      `(select domain from issuer_domains
         where issuer_domains.user_id = users.id and proven_at is not null
         order by proven_at desc, domain asc limit 1) as issuer_domain`,
    ),
  ];
}

function accountColumns(db: Queryable) {
  return [
    ...userColumns(db),
    'disabled_at',
    db.raw('(select balance from credits where credits.user_id = users.id) as credits'),
  ];
}

function toUser(row: UserRow): User {
  return {
    id: row.id,
    displayName: row.display_name,
    qualified: row.qualified,
    role: row.role,
    planId: row.plan_id,
    planNetworkIds: row.plan_network_ids,
    createdAt: row.created_at,
    ...(row.tokens_valid_after === null ? {} : { tokensValidAfter: row.tokens_valid_after }),
    ...(row.issuer_domain === null ? {} : { issuerDomain: row.issuer_domain }),
  };
}

function toAccount(row: UserAccountRow): UserAccount {
  return { ...toUser(row), disabledAt: row.disabled_at, credits: row.credits ?? 0 };
}

/** Users who may call the APIs: a disabled user's tokens and keys find no user. */
function activeUsers(db: Queryable) {
  return db('users').whereNull('disabled_at');
}

/**
 * Creates the user with its credit balance, both or neither; the balance is the first movement of
 * the user's credit ledger, made by `context`'s actor (none for the service itself).
 */
export async function createUser(
  db: Queryable,
  user: NewUser,
  context: ChangeContext = { actorId: null, requestId: null },
): Promise<User> {
  return db.transaction(async (trx) => {
    const initialCredits = user.initialCredits ?? 0;
    await trx('users').insert({
      id: user.id,
      display_name: user.displayName,
      plan_id: user.planId,
      qualified: user.qualified ?? false,
      role: user.role ?? 'user',
    });
    await trx('credits').insert({ user_id: user.id, balance: initialCredits });
    await recordCreditMovements(trx, [
      {
        userId: user.id,
        kind: 'initial',
        amount: initialCredits,
        balanceAfter: initialCredits,
        ...context,
      },
    ]);
    const created = await findUser(trx, user.id);
    if (created === undefined) throw new Error(`user ${user.id} not found after inserting it`);
    return created;
  });
}

/** The user with the networks of its plan, in one query; undefined for a disabled user. */
export async function findUser(db: Queryable, id: string): Promise<User | undefined> {
  const row = await activeUsers(db).where('id', id).first<UserRow | undefined>(userColumns(db));
  return row === undefined ? undefined : toUser(row);
}

/** The users of these ids that exist and are not disabled, with their plans' networks. */
export async function findUsers(db: Queryable, ids: readonly string[]): Promise<Map<string, User>> {
  if (ids.length === 0) return new Map();
  // The ids as one JSON parameter: the same text for any number of them.
  const rows = await prepared(
    activeUsers(db)
      .whereRaw('id in (select json_array_elements_text(?::json))', [userIdsJson(ids)])
      .select<UserRow[]>(userColumns(db)),
    'users-by-ids',
  );
  return new Map(rows.map((row) => [row.id, toUser(row)]));
}

/** `findUser` for a server's requests: lookups that arrive together are one query. */
export function batchedUserLookup(db: Queryable): (id: string) => Promise<User | undefined> {
  return batchedLookup((ids) => findUsers(db, ids));
}

/**
 * Applies the changes given (to a disabled user too); returns the updated account, or undefined
 * when there is none.
 */
export async function updateUser(
  db: Queryable,
  id: string,
  changes: UserChanges,
): Promise<UserAccount | undefined> {
  const patch: Partial<UserRow> = {};
  if (changes.displayName !== undefined) patch.display_name = changes.displayName;
  if (changes.qualified !== undefined) patch.qualified = changes.qualified;
  if (changes.planId !== undefined) patch.plan_id = changes.planId;
  if (changes.role !== undefined) patch.role = changes.role;
  if (Object.keys(patch).length === 0) return findUserAccount(db, id);
  // Read back afterwards: a new plan brings other networks, which RETURNING cannot join.
  const updated = await db('users').where('id', id).update(patch);
  return updated === 0 ? undefined : findUserAccount(db, id);
}

/**
 * Disables the user (its tokens and keys find no user from the next lookup on) or enables it
 * again; a user already in that state keeps its original time. Disabling also ends, for good, the
 * tokens issued until then (`tokensValidAfter`), so enabling brings back its keys but not those
 * tokens. Undefined when there is none.
 */
export async function setUserDisabled(
  db: Queryable,
  id: string,
  disabled: boolean,
): Promise<UserAccount | undefined> {
  const updated = await db('users')
    .where('id', id)
    .update({
      disabled_at: disabled ? db.raw('coalesce(disabled_at, now())') : null,
      ...(disabled
        ? {
            tokens_valid_after: db.raw(
              'case when disabled_at is null then now() else tokens_valid_after end',
            ),
          }
        : {}),
    });
  return updated === 0 ? undefined : findUserAccount(db, id);
}

/**
 * Locks the user's row (`FOR UPDATE`) for the rest of the caller's transaction, so that concurrent
 * changes of its state take turns; says whether it was disabled. Undefined when there is none.
 */
export async function lockUser(
  trx: Queryable,
  id: string,
): Promise<{ disabledAt: Date | null } | undefined> {
  const row = await trx('users')
    .where('id', id)
    .forUpdate()
    .first<{ disabled_at: Date | null } | undefined>('disabled_at');
  return row === undefined ? undefined : { disabledAt: row.disabled_at };
}

/** Any user, disabled or not, with its balance: for administrators. */
export async function findUserAccount(db: Queryable, id: string): Promise<UserAccount | undefined> {
  const row = await db('users')
    .where('id', id)
    .first<UserAccountRow | undefined>(accountColumns(db));
  return row === undefined ? undefined : toAccount(row);
}

export interface UserAccountListFilter {
  offset: number;
  limit: number;
  /** By id. */
  order: 'asc' | 'desc';
  /** Only disabled (true) or only active (false) users; both when absent. */
  disabled?: boolean;
}

/** The id of an administrator (disabled ones too), the first by id, or undefined when none. */
export async function findAnyAdministrator(db: Queryable): Promise<string | undefined> {
  const row = await db('users')
    .where('role', 'admin')
    .orderBy('id')
    .first<{ id: string } | undefined>('id');
  return row?.id;
}

/** A page of users, disabled ones too, with the number of users matching the filter. */
export async function listUserAccounts(
  db: Queryable,
  filter: UserAccountListFilter,
): Promise<{ accounts: UserAccount[]; total: number }> {
  const matching = () => {
    const query = db('users');
    if (filter.disabled === true) query.whereNotNull('disabled_at');
    if (filter.disabled === false) query.whereNull('disabled_at');
    return query;
  };
  const [rows, counted] = await Promise.all([
    matching()
      .orderBy('id', filter.order)
      .offset(filter.offset)
      .limit(filter.limit)
      .select<UserAccountRow[]>(accountColumns(db)),
    matching().count<{ count: number | string }[]>({ count: '*' }),
  ]);
  return { accounts: rows.map(toAccount), total: Number(counted[0]?.count ?? 0) };
}
