import type { NewAuditEntry, User } from '@trustpoint/db';

/** What the audit log calls an asset; its evidences are changes to it. */
export function assetTarget(trackId: string): string {
  return `asset:${trackId}`;
}

/** An audit entry for a change the user made to an asset (or its evidences) in a request. */
export function assetAudit(
  user: Pick<User, 'id'>,
  requestId: string | null | undefined,
  action: `asset.${string}` | `evidence.${string}`,
  trackId: string,
  changes: Record<string, unknown>,
): NewAuditEntry {
  return {
    actorId: user.id,
    requestId: requestId ?? null,
    action,
    target: assetTarget(trackId),
    changes,
  };
}
