/** What a credit movement's row says it was for, as the service lists it. */
export interface MovementWithPurpose {
  reason: string | null;
  spentOn?: {
    operation: string;
    certID?: string;
    trackID?: string;
    evidenceHash?: string;
  } | null;
  refundOf?: number | null;
}

/**
 * One line for a table: a spend's operation and what it made (`certificate.create did:...`), a
 * refund's reason and the spend it gives back, otherwise the reason.
 */
export function movementPurpose(movement: MovementWithPurpose): string {
  const spent = movement.spentOn;
  const what =
    spent === null || spent === undefined
      ? undefined
      : [
          spent.operation,
          spent.certID ?? spent.trackID,
          spent.evidenceHash === undefined ? undefined : `evidence ${spent.evidenceHash}`,
        ]
          .filter((part) => part !== undefined)
          .join(' ');
  const refunded =
    movement.refundOf === null || movement.refundOf === undefined
      ? undefined
      : `of #${String(movement.refundOf)}`;
  return [movement.reason, refunded, what].filter((part) => part != null).join(': ') || '-';
}
