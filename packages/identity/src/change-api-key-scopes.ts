import {
  lockApiKeyTree,
  recordAudit,
  setApiKeyScopes,
  type ChangeContext,
  type Queryable,
} from '@trustpoint/db';
import { DomainError, scopesBeyond, sortedScopes, type ApiScope } from '@trustpoint/domain';

import {
  activeDescendants,
  apiKeyById,
  findApiKey,
  revokeApiKey,
  type ApiKey,
} from './api-keys.js';

export interface ApiKeyScopesChange extends ChangeContext {
  userId: string;
  keyId: string;
  scopes: readonly ApiScope[];
  /**
   * An administrator may give a key scopes it lacks (never more than its parent has); its owner
   * may only take some away.
   */
  mayWiden: boolean;
  /**
   * The scopes of the credential asking (undefined: full access, the user's own token): a key
   * wider than it is not changed (403).
   */
  actingScopes?: readonly ApiScope[] | undefined;
  now: Date;
}

export interface ApiKeyScopesChanged {
  apiKey: ApiKey;
  /** Keys made with it (at any depth) whose scopes were narrowed to stay within it, by id. */
  narrowed: Record<string, ApiScope[]>;
  /** Keys made with it left with no scope: revoked, with theirs. */
  revoked: string[];
}

/**
 * Refuses (403) a change or revocation of a key wider than the credential asking (a key holding
 * only `keys` revoking the user's full key): a key manages only keys within its own scopes, as it
 * makes only those. A credential without scopes (the user's own token) manages every key.
 */
export function assertWithinCredential(
  target: ApiKey,
  /** The scopes of the credential asking; undefined for full access. */
  credentialScopes: readonly ApiScope[] | undefined,
  action: 'change' | 'revoke',
): void {
  const beyond = scopesBeyond(target.scopes, credentialScopes);
  if (beyond.length === 0) return;
  throw new DomainError('insufficientScope', {
    detail: `a key cannot ${action} a key wider than itself (${beyond.join(' ')})`,
    hint: {
      field: 'path.keyId',
      error: `A key can ${action} only keys within its own scopes; this one also holds: ${beyond.join(', ')}`,
    },
  });
}

function refused(field: string, error: string): DomainError {
  return new DomainError('validation', { detail: error, errors: [{ field, error }] });
}

const sameScopes = (a: readonly ApiScope[], b: readonly ApiScope[]) =>
  a.length === b.length && a.every((scope, index) => b[index] === scope);

/**
 * Sets what a key may do, in the caller's transaction and under the locks of the key's tree
 * (`lockApiKeyTree`: its owner's, which key creations and revocations take too, so they see the
 * change or come before it, and those of the owners of the keys made with it, in id order).
 *
 * - A key made with another key never has a scope its parent lacks: widening it past its parent
 *   is refused (400), and narrowing a key narrows every key made with it (at any depth) to what
 *   both allow; one left with no scope at all is revoked, with the keys made with it. A wider key
 *   leaves its children as they are.
 * - Its owner may only narrow it (403 `insufficientScope` naming what it lacks); an administrator
 *   may widen it (`mayWiden`).
 * - A revoked or expired key is not changed (400). Undefined when the user has no such key.
 * - Takes effect from the next request: each request with the key, or with a token exchanged for
 *   it, reads the key's scopes (a token does what both its own scope and the key's allow now).
 * Recorded in the audit log as `api-key.scopes` when anything changed; setting the scopes a key
 * has changes nothing and records nothing, so a retry is harmless.
 */
export async function changeApiKeyScopes(
  trx: Queryable,
  change: ApiKeyScopesChange,
): Promise<ApiKeyScopesChanged | undefined> {
  const scopes = sortedScopes(change.scopes);
  // The owners of every key under it too, in id order: its children of other users are revoked
  // below, and taking their locks after the owner's could wait in a circle with another change.
  await lockApiKeyTree(trx, change.userId, change.keyId);
  const apiKey = await findApiKey(trx, change.userId, change.keyId);
  if (apiKey === undefined) return undefined;
  assertWithinCredential(apiKey, change.actingScopes, 'change');
  if (apiKey.revokedAt !== null) {
    throw refused('path.keyId', 'The key is revoked: it can do nothing any more');
  }
  if (apiKey.expiresAt !== null && apiKey.expiresAt <= change.now) {
    throw refused('path.keyId', 'The key has expired: it can do nothing any more');
  }
  if (!change.mayWiden) {
    const beyond = scopesBeyond(scopes, apiKey.scopes);
    if (beyond.length > 0) {
      throw new DomainError('insufficientScope', {
        detail: `key ${apiKey.id} cannot be widened by its owner (${beyond.join(' ')})`,
        hint: {
          field: 'body.scopes',
          error: `A key's scopes can only be narrowed; it does not have ${beyond.join(', ')} (an administrator can add them)`,
        },
      });
    }
  }
  if (apiKey.parentKeyId !== null) {
    const parent = await apiKeyById(trx, apiKey.parentKeyId, change.now);
    const parentScopes = parent.status === 'unknown' ? [] : parent.apiKey.scopes;
    const beyond = scopesBeyond(scopes, parentScopes);
    if (beyond.length > 0) {
      throw refused(
        'body.scopes',
        `A key made with another key cannot have scopes that key (${apiKey.parentKeyId}) lacks: ${beyond.join(', ')}`,
      );
    }
  }

  // Each descendant keeps what it has and its parent (as changed) allows; parents come first.
  const allowed = new Map<string, readonly ApiScope[]>([[apiKey.id, scopes]]);
  const changed = new Map<string, ApiScope[]>();
  const emptied: { id: string; userId: string }[] = [];
  const descendants = await activeDescendants(trx, apiKey.id);
  const pending = [...descendants];
  while (pending.length > 0) {
    const index = pending.findIndex((key) => allowed.has(key.parentKeyId));
    // Every active descendant's parent is the key or another active descendant.
    if (index < 0) break;
    const [key] = pending.splice(index, 1);
    if (key === undefined) break;
    const within = key.scopes.filter((scope) => allowed.get(key.parentKeyId)?.includes(scope));
    allowed.set(key.id, within);
    if (within.length === 0) emptied.push({ id: key.id, userId: key.userId });
    else if (!sameScopes(within, key.scopes)) changed.set(key.id, within);
  }
  if (!sameScopes(scopes, apiKey.scopes)) changed.set(apiKey.id, scopes);
  if (changed.size === 0 && emptied.length === 0) return { apiKey, narrowed: {}, revoked: [] };

  await setApiKeyScopes(trx, changed);
  const revoked = new Set<string>();
  for (const { id, userId } of emptied) {
    if (revoked.has(id)) continue;
    const done = await revokeApiKey(trx, {
      userId,
      id,
      revokedBy: change.actorId,
      at: change.now,
    });
    revoked.add(id);
    for (const descendant of done?.descendants ?? []) revoked.add(descendant);
  }
  const narrowed = Object.fromEntries(
    [...changed].filter(([id]) => id !== apiKey.id && !revoked.has(id)),
  );
  await recordAudit(trx, [
    {
      actorId: change.actorId,
      requestId: change.requestId,
      action: 'api-key.scopes',
      target: `api-key:${apiKey.id}`,
      changes: {
        userId: change.userId,
        from: apiKey.scopes,
        to: scopes,
        ...(Object.keys(narrowed).length === 0 ? {} : { narrowed }),
        ...(revoked.size === 0 ? {} : { revoked: [...revoked].sort() }),
      },
    },
  ]);
  const after = await findApiKey(trx, change.userId, apiKey.id);
  if (after === undefined) throw new Error(`API key ${apiKey.id} vanished while changing scopes`);
  return { apiKey: after, narrowed, revoked: [...revoked].sort() };
}
