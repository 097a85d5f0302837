import { DomainError, scopeParameter, type ApiScope } from '@trustpoint/domain';
import type { RequestHandler, Response } from 'express';

import type { Credential } from './bearer-tokens.js';

/** Where `authenticate` leaves the caller's credential; read it through `currentCredential`. */
const CREDENTIAL_KEY = 'credential';

export function setCurrentCredential(res: Response, credential: Credential): void {
  res.locals[CREDENTIAL_KEY] = credential;
}

/** The credential of an authenticated request, undefined for an anonymous one. */
export function currentCredential(res: Response): Credential | undefined {
  // Only setCurrentCredential writes this key.
  const credential: unknown = res.locals[CREDENTIAL_KEY];
  return credential as Credential | undefined;
}

/**
 * Refuses a request whose credential lacks `scope`: 403 `insufficientScope`, the body's
 * `errors[0]` naming the scope (`field: "scope"`), and RFC 6750's
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`. After `authenticate` (or
 * `optionalAuthenticate`: an anonymous request passes, a token present must hold the scope).
 * Credentials without scopes (full access) always pass.
 */
export function requireScope(scope: ApiScope): RequestHandler {
  return (_req, res, next) => {
    const scopes = currentCredential(res)?.scopes;
    if (scopes === undefined || scopes.includes(scope)) {
      next();
      return;
    }
    res.setHeader(
      'WWW-Authenticate',
      `Bearer error="insufficient_scope", scope="${scope}", error_description="This operation requires the scope ${scope}"`,
    );
    throw new DomainError('insufficientScope', {
      detail: `scope ${scope} required, credential has "${scopeParameter(scopes)}"`,
      hint: {
        field: 'scope',
        error: `This operation requires the scope "${scope}"; the credential has ${
          scopes.length === 0 ? 'none' : `"${scopeParameter(scopes)}"`
        }`,
      },
    });
  };
}
