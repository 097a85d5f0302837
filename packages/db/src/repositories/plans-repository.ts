import type { Queryable } from '../queryable.js';

/** A plan names the networks its users may anchor on. */
export interface Plan {
  id: string;
  name: string;
  networkIds: string[];
}

interface PlanRow {
  id: string;
  name: string;
}

interface PlanNetworkRow {
  plan_id: string;
  network_id: string;
}

/** Creates the plan, or replaces its name and networks; atomic even outside a transaction. */
export async function savePlan(db: Queryable, plan: Plan): Promise<Plan> {
  const networkIds = [...new Set(plan.networkIds)].sort();
  await db.transaction(async (trx) => {
    await trx<PlanRow>('plans')
      .insert({ id: plan.id, name: plan.name })
      .onConflict('id')
      .merge(['name']);
    await trx<PlanNetworkRow>('plan_networks').where('plan_id', plan.id).delete();
    if (networkIds.length > 0) {
      await trx<PlanNetworkRow>('plan_networks').insert(
        networkIds.map((networkId) => ({ plan_id: plan.id, network_id: networkId })),
      );
    }
  });
  return { id: plan.id, name: plan.name, networkIds };
}

/**
 * Creates the plan unless its id is taken (undefined then, nothing changed). Pass the transaction
 * that records the creation: the name and the networks are written by two statements.
 */
export async function createPlan(trx: Queryable, plan: Plan): Promise<Plan | undefined> {
  const inserted = await trx<PlanRow>('plans')
    .insert({ id: plan.id, name: plan.name })
    .onConflict('id')
    .ignore()
    .returning('id');
  if (inserted.length === 0) return undefined;
  return savePlan(trx, plan);
}

/**
 * Locks the plan's row (`FOR UPDATE`) for the rest of the caller's transaction, so that concurrent
 * changes of it take turns; false when there is no such plan.
 */
export async function lockPlan(trx: Queryable, id: string): Promise<boolean> {
  const row = await trx<PlanRow>('plans')
    .where('id', id)
    .forUpdate()
    .first<{ id: string } | undefined>('id');
  return row !== undefined;
}

export async function findPlan(db: Queryable, id: string): Promise<Plan | undefined> {
  const row = await db<PlanRow>('plans').where('id', id).first('id', 'name');
  if (row === undefined) return undefined;
  const networks = await db<PlanNetworkRow>('plan_networks')
    .where('plan_id', id)
    .orderBy('network_id')
    .select('network_id');
  return { id: row.id, name: row.name, networkIds: networks.map((n) => n.network_id) };
}

/** Whether the user's plan allows anchoring on the network; false for an unknown user. */
export async function isNetworkInPlan(
  db: Queryable,
  userId: string,
  networkId: string,
): Promise<boolean> {
  const row = await db('users')
    .join('plan_networks', 'plan_networks.plan_id', 'users.plan_id')
    .where({ 'users.id': userId, 'plan_networks.network_id': networkId })
    .first<{ found: number } | undefined>(db.raw('1 as found'));
  return row !== undefined;
}

/** Every plan with its networks, by id. */
export async function listPlans(db: Queryable): Promise<Plan[]> {
  const [plans, networks] = await Promise.all([
    db<PlanRow>('plans').orderBy('id').select('id', 'name'),
    db<PlanNetworkRow>('plan_networks').orderBy(['plan_id', 'network_id']).select('*'),
  ]);
  const byPlan = new Map<string, string[]>(plans.map((plan) => [plan.id, []]));
  for (const { plan_id: planId, network_id: networkId } of networks) {
    byPlan.get(planId)?.push(networkId);
  }
  return plans.map((plan) => ({ ...plan, networkIds: byPlan.get(plan.id) ?? [] }));
}
