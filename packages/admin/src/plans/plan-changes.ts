import {
  createPlan,
  findPlan,
  lockPlan,
  recordAudit,
  savePlan,
  type ChangeContext,
  type Plan,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Knex } from 'knex';

/** Creates a plan, audited (`plan.create`); 409 when its id is taken. */
export async function addPlan(knex: Knex, plan: Plan, context: ChangeContext): Promise<Plan> {
  return knex.transaction(async (trx) => {
    const saved = await createPlan(trx, plan);
    if (saved === undefined) throw new DomainError('alreadyExists');
    await recordAudit(trx, [
      {
        ...context,
        action: 'plan.create',
        target: `plan:${saved.id}`,
        changes: { name: saved.name, networkIds: saved.networkIds },
      },
    ]);
    return saved;
  });
}

/**
 * Replaces a plan's networks (and its name, when given) under the plan's row lock, audited
 * (`plan.update`, with the networks before and after); 404 when there is no such plan.
 */
export async function updatePlan(
  knex: Knex,
  id: string,
  changes: { name?: string | undefined; networkIds: string[] },
  context: ChangeContext,
): Promise<Plan> {
  return knex.transaction(async (trx) => {
    const before = (await lockPlan(trx, id)) ? await findPlan(trx, id) : undefined;
    if (before === undefined) throw new DomainError('notFound', { detail: `no plan ${id}` });
    const saved = await savePlan(trx, {
      id,
      name: changes.name ?? before.name,
      networkIds: changes.networkIds,
    });
    await recordAudit(trx, [
      {
        ...context,
        action: 'plan.update',
        target: `plan:${id}`,
        changes: {
          ...(saved.name === before.name ? {} : { name: saved.name }),
          networkIds: { before: before.networkIds, after: saved.networkIds },
        },
      },
    ]);
    return saved;
  });
}
