import type { Queryable } from '../queryable.js';
import { grantCredits } from './credits-repository.js';

/**
 * Undoes the creation of a certificate whose trustpoint never left the anchoring queue: removes
 * its trustpoints and the certificate and gives the owner's credit back. Use it in the transaction
 * that withdrew the queued record, so that either all of it happens or none.
 */
export async function withdrawCertificate(
  db: Queryable,
  certificateId: string,
  ownerId: string,
): Promise<void> {
  await db('trustpoints').where({ certificate_id: certificateId }).delete();
  const removed = await db('certificates').where({ id: certificateId, user_id: ownerId }).delete();
  if (removed === 1) await grantCredits(db, ownerId, 1);
}
