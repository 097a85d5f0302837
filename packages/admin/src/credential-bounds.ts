import { API_SCOPES, type ApiScope } from '@trustpoint/domain';
import { currentCredential } from '@trustpoint/http';
import type { Response } from 'express';

/** What an administrator's narrower credential allows it to make, on any account. */
export interface CredentialBounds {
  scopes: readonly ApiScope[];
  /** The API key behind the credential: what is made with it is revoked with it. */
  apiKeyId: string | undefined;
  /** When the credential stops working (null: never); what is made stops no later. */
  expiresAt: Date | null | undefined;
}

/**
 * An administrator acting through an API key, a token exchanged for or minted with one, or a token
 * naming scopes acts as that credential on every account, its own or another's: a token or key it
 * makes, or scopes it sets, are never wider than it, and what it makes is revoked with its key. Were
 * another account exempt, an `admin`-only key could make an administrator (or use one) and mint
 * through it full access that outlives the key. Undefined for a credential with the account's
 * whole power: a user's own token, or an API key itself holding every scope and no expiry (such
 * as the key `trustpoint init-admin` prints): what it makes for customers must not die with it
 * when an operator rotates it, and it could make its holder another such key anyway.
 */
export function credentialBounds(res: Response): CredentialBounds | undefined {
  const credential = currentCredential(res);
  if (credential === undefined) return undefined;
  if (credential.apiKeyId === undefined && credential.scopes === undefined) return undefined;
  // A key used as itself has its own expiry (null: never); a token exchanged for one, its `exp`.
  const everyScope = API_SCOPES.every(
    (scope) => credential.scopes === undefined || credential.scopes.includes(scope),
  );
  if (credential.apiKeyId !== undefined && everyScope && credential.expiresAt === null) {
    return undefined;
  }
  return {
    scopes: credential.scopes ?? API_SCOPES,
    apiKeyId: credential.apiKeyId,
    expiresAt: credential.expiresAt,
  };
}
