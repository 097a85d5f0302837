import {
  constraintViolation,
  createUser,
  findPlan,
  findUserAccount,
  lockUser,
  recordAudit,
  setUserDisabled,
  updateUser,
  type ChangeContext,
  type Queryable,
  type UserAccount,
  type UserChanges,
  type UserRole,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Knex } from 'knex';
import { noSuchUser, refused } from '../admin-errors.js';

/** The account of a user id, disabled or not; 404 when there is none. */
export async function existingAccount(db: Queryable, id: string): Promise<UserAccount> {
  const account = await findUserAccount(db, id);
  if (account === undefined) throw noSuchUser(id);
  return account;
}

/** A plan id given in a body must name a plan: 400 on the field otherwise. */
export async function requirePlan(db: Queryable, planId: string, field: string): Promise<void> {
  if ((await findPlan(db, planId)) === undefined) throw refused(field, 'No such plan');
}

export interface NewUserAccount {
  id: string;
  displayName: string;
  planId: string;
  qualified: boolean;
  role: UserRole;
  credits: number;
}

/** Creates a user with its starting balance, audited as `user.create`; 409 when the id is taken. */
export async function createUserAccount(
  knex: Knex,
  user: NewUserAccount,
  context: ChangeContext,
): Promise<UserAccount> {
  return knex
    .transaction(async (trx) => {
      await requirePlan(trx, user.planId, 'body.planId');
      await createUser(
        trx,
        {
          id: user.id,
          displayName: user.displayName,
          planId: user.planId,
          qualified: user.qualified,
          role: user.role,
          initialCredits: user.credits,
        },
        context,
      );
      await recordAudit(trx, [
        {
          ...context,
          action: 'user.create',
          target: `user:${user.id}`,
          changes: {
            displayName: user.displayName,
            planId: user.planId,
            qualified: user.qualified,
            role: user.role,
            credits: user.credits,
          },
        },
      ]);
      return existingAccount(trx, user.id);
    })
    .catch((error: unknown) => {
      const violation = constraintViolation(error);
      if (violation?.kind === 'unique') throw new DomainError('alreadyExists', { cause: error });
      if (violation?.kind === 'foreign-key') throw refused('body.planId', 'No such plan');
      throw error;
    });
}

/**
 * Locks the acting administrator's row and the target user's, in id order (two administrators
 * acting on each other never wait on each other), and checks the actor is still an enabled
 * administrator. Its role was read when the request was authenticated, before this transaction:
 * two administrators demoting or disabling each other at once would otherwise both pass and leave
 * none. Under the lock the second waits for the first, then finds itself no administrator (403).
 */
async function lockActingAdministrator(
  trx: Queryable,
  actorId: string | null,
  targetId: string,
): Promise<void> {
  const ids = actorId === null ? [targetId] : [...new Set([actorId, targetId])].sort();
  for (const id of ids) await lockUser(trx, id);
  if (actorId === null) return;
  const actor = await findUserAccount(trx, actorId);
  if (actor === undefined || actor.role !== 'admin' || actor.disabledAt !== null) {
    throw new DomainError('adminRequired', {
      detail: `${actorId} is no longer an enabled admin`,
    });
  }
}

/**
 * Changes a user's name, plan, qualified flag or role; audits the fields that changed. Under the
 * actor's and the user's row locks (`lockActingAdministrator`): at least the actor stays an admin.
 */
export async function updateUserAccount(
  knex: Knex,
  id: string,
  changes: UserChanges,
  context: ChangeContext,
): Promise<UserAccount> {
  if (id === context.actorId && changes.role === 'user') {
    // The last way back in would be the database itself.
    throw refused('body.role', 'An administrator cannot take their own admin role away');
  }
  return knex.transaction(async (trx) => {
    await lockActingAdministrator(trx, context.actorId, id);
    const before = await existingAccount(trx, id);
    if (changes.planId !== undefined) await requirePlan(trx, changes.planId, 'body.planId');
    const updated = await updateUser(trx, id, changes);
    if (updated === undefined) throw new DomainError('notFound');
    const changed = Object.fromEntries(
      Object.entries(changes).filter(
        ([field, value]) => before[field as keyof typeof changes] !== value,
      ),
    );
    if (Object.keys(changed).length > 0) {
      await recordAudit(trx, [
        { ...context, action: 'user.update', target: `user:${id}`, changes: changed },
      ]);
    }
    return updated;
  });
}

/**
 * Disables a user (its tokens and keys are refused from the next request on) or enables it again,
 * under the actor's and the user's row locks (`lockActingAdministrator`); audited only when its
 * state changes. An admin cannot disable themselves.
 */
export async function setUserAccountDisabled(
  knex: Knex,
  change: { id: string; disabled: boolean; reason: string | undefined },
  context: ChangeContext,
): Promise<UserAccount> {
  const { id, disabled, reason } = change;
  if (disabled && id === context.actorId) {
    throw refused('path.id', 'An administrator cannot disable themselves');
  }
  return knex.transaction(async (trx) => {
    await lockActingAdministrator(trx, context.actorId, id);
    const before = await existingAccount(trx, id);
    const updated = await setUserDisabled(trx, id, disabled);
    if (updated === undefined) throw new DomainError('notFound');
    if ((before.disabledAt !== null) !== disabled) {
      await recordAudit(trx, [
        {
          ...context,
          action: disabled ? 'user.disable' : 'user.enable',
          target: `user:${id}`,
          changes: reason === undefined ? {} : { reason },
        },
      ]);
    }
    return updated;
  });
}
