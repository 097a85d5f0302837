import type { ChangeContext } from '@trustpoint/db';
import { currentUser, requestIdOf } from '@trustpoint/http';
import type { Response } from 'express';

/** The admin making this request, and the request: what the audit log and the ledger record. */
export function contextOf(res: Response): ChangeContext {
  return { actorId: currentUser(res).id, requestId: requestIdOf(res) };
}
