/**
 * Who made a change and in answer to which request: what the audit log and the credit ledger
 * record beside the change itself. Both null for the service's own changes (refunds, start-up).
 */
export interface ChangeContext {
  /** The user id of the caller. */
  actorId: string | null;
  /** The request's id (`X-Request-Id`), when the change answers a request. */
  requestId: string | null;
}

/** The service itself, outside any request. */
export const SERVICE_CHANGE: ChangeContext = Object.freeze({ actorId: null, requestId: null });
