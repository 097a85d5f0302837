/** The admin API's shapes, as packages/admin/README.md documents them. */
export interface User {
  id: string;
  displayName: string;
  role: 'user' | 'admin';
  qualified: boolean;
  planId: string;
  networkIds: string[];
  credits: number;
  disabled: boolean;
  disabledAt: string | null;
  createdAt: string;
}

export interface Plan {
  id: string;
  name: string;
  networkIds: string[];
}

export interface CreditMovement {
  id: string | number;
  kind: string;
  amount: number;
  balanceAfter: number;
  actor: string | null;
  reason: string | null;
  requestId: string | null;
  at: string;
  /** A spend: what it paid for; a refund: what the credit it gives back paid for. */
  spentOn: {
    operation: string;
    certID?: string;
    trackID?: string;
    evidenceHash?: string;
    timestamp?: number;
  } | null;
  /** A refund: the id of the spend it gives back. */
  refundOf: number | null;
}

export interface AuditEntry {
  id: string | number;
  at: string;
  actor: string | null;
  requestId: string | null;
  action: string;
  target: string;
  changes: unknown;
}

export interface Pagination {
  offset: number;
  limit: number;
  total: number;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: string;
  expiresIn: number;
  expiresAt: string;
  userId: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  createdBy: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** What the key may do: read, certify, track, keys, webhooks, admin. */
  scopes: string[];
  /** The key it was made with (bounding its scopes and expiry), or null. */
  parentKeyId: string | null;
}
