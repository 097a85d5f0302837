import type { Queryable } from '../queryable.js';
import { refundPaidRecords } from './credit-refunds.js';

/**
 * Undoes the creation of a certificate whose trustpoint never left the anchoring queue: removes
 * its trustpoints and the certificate and gives the owner's credit back (a `refund` naming the
 * creation). Use it in the transaction
 * that withdrew the queued record, so that either all of it happens or none.
 */
export async function withdrawCertificate(
  db: Queryable,
  certificateId: string,
  ownerId: string,
): Promise<void> {
  const owned = await db('certificates')
    .where({ id: certificateId, user_id: ownerId })
    .first<{ id: string } | undefined>('id');
  if (owned === undefined) return;
  const records = await db('trustpoints')
    .where({ certificate_id: certificateId })
    .whereNotNull('anchor_record_id')
    .pluck<number[]>('anchor_record_id');
  // The credit row first, then the certificate (whose delete updates the user's counters): the
  // order creation takes them in, so a withdrawal and a creation cannot deadlock. Before the
  // trustpoints go: they lead the refund to the creation it gives back.
  await refundPaidRecords(db, records, 'certificate creation withdrawn');
  await db('trustpoints').where({ certificate_id: certificateId }).delete();
  await db('certificates').where({ id: certificateId, user_id: ownerId }).delete();
}
