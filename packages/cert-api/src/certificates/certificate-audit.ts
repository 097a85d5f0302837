import type { NewAuditEntry, User } from '@trustpoint/db';

/** What the audit log calls a certificate. */
export function certificateTarget(certId: string): string {
  return `certificate:${certId}`;
}

/** An audit entry for a change the user made to a certificate in the request `requestId`. */
export function certificateAudit(
  user: Pick<User, 'id'>,
  requestId: string | null | undefined,
  action: `certificate.${string}`,
  certId: string,
  changes: Record<string, unknown>,
): NewAuditEntry {
  return {
    actorId: user.id,
    requestId: requestId ?? null,
    action,
    target: certificateTarget(certId),
    changes,
  };
}
