import { listAcknowledgedRecords, listAuditEntries } from '@trustpoint/db';
import { sendSuccess, validate } from '@trustpoint/http';
import { Router } from 'express';
import type { AdminApiOptions } from '../admin-api-options.js';
import { auditQuerySchema, recordsQuerySchema } from '../admin-schemas.js';
import { anchorRecordView, auditEntryView } from '../admin-views.js';

/**
 * What the service has done, read only: `/audit`, the audit log; `/records`, the anchor records
 * the APIs acknowledged, which reconciliation compares with the chain.
 */
export function auditRoutes({ knex }: AdminApiOptions): Router {
  const router = Router();

  router.get('/audit', async (req, res) => {
    const query = validate(auditQuerySchema, req.query, 'query');
    const { entries, total } = await listAuditEntries(knex, {
      ...(query.actor === undefined ? {} : { actorId: query.actor }),
      ...(query.action === undefined ? {} : { action: query.action }),
      ...(query.target === undefined ? {} : { target: query.target }),
      ...(query.since === undefined ? {} : { since: new Date(query.since) }),
      ...(query.until === undefined ? {} : { until: new Date(query.until) }),
      offset: query.offset,
      limit: query.limit,
    });
    sendSuccess(res, 200, `Retrieved ${String(entries.length)} audit entr(ies)`, {
      entries: entries.map(auditEntryView),
      pagination: { offset: query.offset, limit: query.limit, total, order: 'desc' as const },
    });
  });

  router.get('/records', async (req, res) => {
    const query = validate(recordsQuerySchema, req.query, 'query');
    const records = await listAcknowledgedRecords(knex, {
      ...(query.network === undefined ? {} : { networkId: query.network }),
      ...(query.since === undefined ? {} : { since: new Date(query.since) }),
      ...(query.after === undefined ? {} : { after: query.after }),
      limit: query.limit,
    });
    const last = records.length === query.limit ? records[records.length - 1] : undefined;
    sendSuccess(res, 200, `Retrieved ${String(records.length)} record(s)`, {
      records: records.map(anchorRecordView),
      next: last?.id ?? null,
    });
  });

  return router;
}
