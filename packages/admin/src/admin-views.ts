import type {
  AcknowledgedRecord,
  AuditEntry,
  CreditMovement,
  Plan,
  UserAccount,
} from '@trustpoint/db';
import { creditSpendView } from '@trustpoint/identity';

/** How the admin API shows a user. */
export function userView(account: UserAccount) {
  return {
    id: account.id,
    displayName: account.displayName,
    role: account.role,
    qualified: account.qualified,
    planId: account.planId,
    networkIds: account.planNetworkIds,
    credits: account.credits,
    disabled: account.disabledAt !== null,
    disabledAt: account.disabledAt?.toISOString() ?? null,
    createdAt: account.createdAt.toISOString(),
  };
}

export function planView(plan: Plan) {
  return { id: plan.id, name: plan.name, networkIds: plan.networkIds };
}

export function movementView(movement: CreditMovement) {
  return {
    id: movement.id,
    kind: movement.kind,
    amount: movement.amount,
    balanceAfter: movement.balanceAfter,
    actor: movement.actorId,
    reason: movement.reason,
    requestId: movement.requestId,
    at: movement.at.toISOString(),
    spentOn: creditSpendView(movement.spentOn),
    refundOf: movement.refundOf,
  };
}

export function auditEntryView(entry: AuditEntry) {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actorId,
    requestId: entry.requestId,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
  };
}

export function anchorRecordView(record: AcknowledgedRecord) {
  return {
    id: record.id,
    networkId: record.networkId,
    kind: record.kind,
    recordKey: record.recordKey,
    hash: record.hash,
    trustPointType: record.trustPointType,
    status: record.status,
    contract: record.contract,
    transactionHash: record.transactionHash,
    blockNumber: record.blockNumber,
    createdAt: record.createdAt.toISOString(),
    anchoredAt: record.anchoredAt?.toISOString() ?? null,
  };
}
