import { findPlan, listPlans } from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import { sendSuccess, validate } from '@trustpoint/http';
import { Router } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import { refused } from '../admin-errors.js';
import {
  createPlanBodySchema,
  planIdParamsSchema,
  updatePlanBodySchema,
} from '../admin-schemas.js';
import { planView } from '../admin-views.js';
import { contextOf } from '../change-context.js';
import { addPlan, updatePlan } from './plan-changes.js';

/** `/plans`: the plans users are on, each naming the networks its users may anchor on. */
export function planRoutes(options: AdminApiOptions): Router {
  const { knex } = options;
  const router = Router();

  const requireNetworks = (networkIds: readonly string[]) => {
    const configured = new Set(options.networkIds());
    const unknown = [...new Set(networkIds)].filter((id) => !configured.has(id));
    if (unknown.length > 0) {
      throw refused(
        'body.networkIds',
        `Not configured on this service: ${unknown.join(', ')} (configured: ${[...configured].join(', ') || 'none'})`,
      );
    }
  };

  router.post('/plans', async (req, res) => {
    const body = validate(createPlanBodySchema, req.body, 'body');
    requireNetworks(body.networkIds);
    const plan = await addPlan(knex, body, contextOf(res));
    sendSuccess(res, 201, 'Plan created', planView(plan));
  });

  router.get('/plans', async (_req, res) => {
    const plans = await listPlans(knex);
    sendSuccess(res, 200, `Retrieved ${String(plans.length)} plan(s)`, {
      plans: plans.map(planView),
    });
  });

  router.get('/plans/:id', async (req, res) => {
    const { id } = validate(planIdParamsSchema, req.params, 'path');
    const plan = await findPlan(knex, id);
    if (plan === undefined) throw new DomainError('notFound', { detail: `no plan ${id}` });
    sendSuccess(res, 200, 'Plan retrieved', planView(plan));
  });

  router.put('/plans/:id', async (req, res) => {
    const { id } = validate(planIdParamsSchema, req.params, 'path');
    const body = validate(updatePlanBodySchema, req.body, 'body');
    requireNetworks(body.networkIds);
    const plan = await updatePlan(knex, id, body, contextOf(res));
    sendSuccess(res, 200, 'Plan updated', planView(plan));
  });

  return router;
}
