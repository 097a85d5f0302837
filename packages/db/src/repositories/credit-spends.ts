import {
  CREDIT_SPENDING_ACTIONS,
  type CreditSpendingAction,
  type CreditSpendPurpose,
} from './credit-movements-repository.js';

/** What the audit log names a certificate and an asset (the APIs' `certificate:` and `asset:`). */
const TARGET_PREFIXES = { certificate: 'certificate:', asset: 'asset:' } as const;

function isSpendingAction(action: string): action is CreditSpendingAction {
  return (CREDIT_SPENDING_ACTIONS as readonly string[]).includes(action);
}

function integerOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/**
 * What a spending audit entry paid for, from its action, target and changes (as the APIs record
 * them: `timestamp` for a signature or re-anchoring, `evidenceTimestamp` and `hash` for an asset
 * or evidence). Undefined for an entry that records no spend.
 */
export function spendPurposeOf(entry: {
  action: string;
  target: string;
  changes: unknown;
}): CreditSpendPurpose | undefined {
  if (!isSpendingAction(entry.action)) return undefined;
  const changes =
    typeof entry.changes === 'object' && entry.changes !== null
      ? (entry.changes as Record<string, unknown>)
      : {};
  const idAfter = (prefix: string) =>
    entry.target.startsWith(prefix) ? entry.target.slice(prefix.length) : null;
  const onCertificate = entry.action.startsWith('certificate.');
  return {
    operation: entry.action,
    certId: onCertificate ? idAfter(TARGET_PREFIXES.certificate) : null,
    trackId: onCertificate ? null : idAfter(TARGET_PREFIXES.asset),
    evidenceHash:
      entry.action === 'evidence.add' && typeof changes.hash === 'string' ? changes.hash : null,
    timestamp: onCertificate ? integerOf(changes.timestamp) : integerOf(changes.evidenceTimestamp),
  };
}
