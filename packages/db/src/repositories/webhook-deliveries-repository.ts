import type { Queryable } from '../queryable.js';

/** Webhook deliveries neither delivered nor given up yet. */
export async function countPendingWebhookDeliveries(db: Queryable): Promise<number> {
  const row = await db('webhook_deliveries')
    .where('status', 'pending')
    .first<{ count: string | number } | undefined>(db.raw('count(*) as count'));
  return Number(row?.count ?? 0);
}
