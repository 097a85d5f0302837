import { API_SCOPES, type ApiScope } from '@trustpoint/domain';
import { currentCredential, currentUser } from '@trustpoint/http';
import type { Response } from 'express';

/** What an administrator's narrower credential allows it to make on its own account. */
export interface OwnAccountBounds {
  scopes: readonly ApiScope[];
  /** The API key behind the credential: what is made on the account is revoked with it. */
  apiKeyId: string | undefined;
  /** When the credential stops working (null: never); what is made stops no later. */
  expiresAt: Date | null | undefined;
}

/**
 * An administrator acting on its own account through an API key, a token exchanged for one, or a
 * token naming scopes acts as that credential: a token or key it makes there, or scopes it sets,
 * are never wider than it, and what it makes is revoked with its key (an `admin`-only key must not
 * mint itself full access that outlives it). Undefined for another user's account, and for a
 * credential with full access (whose power is the account's anyway).
 */
export function ownAccountBounds(res: Response, userId: string): OwnAccountBounds | undefined {
  if (currentUser(res).id !== userId) return undefined;
  const credential = currentCredential(res);
  if (
    credential === undefined ||
    (credential.scopes === undefined && credential.apiKeyId === undefined)
  ) {
    return undefined;
  }
  return {
    scopes: credential.scopes ?? API_SCOPES,
    apiKeyId: credential.apiKeyId,
    expiresAt: credential.expiresAt,
  };
}
