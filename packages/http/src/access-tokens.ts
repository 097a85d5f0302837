import { createSecretKey } from 'node:crypto';
import { DomainError } from '@trustpoint/domain';

import { verifyAccessToken, type TokenVerification } from './verify-access-token.js';

export interface AccessTokenSettings {
  /** The HS256 secret the tokens are signed with. */
  secret: string;
  issuer: string;
  audience: string;
}

/** Most tokens remembered as verified; beyond it the oldest is forgotten first. */
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * The access tokens of one API: checks them, and remembers those it accepted with their subject
 * and expiry. A client sends the same token with every request, and the HMAC check is a good part
 * of a small request's cost. Only exact token strings verified with this key are remembered, and
 * each only until its expiry, when it is checked afresh (and found expired). One instance serves
 * authentication and the per-user rate limit, so a token is verified once for both.
 */
export class AccessTokens {
  readonly #verification: TokenVerification;
  readonly #verified = new Map<string, { subject: string; expiresAtMs: number }>();

  constructor(settings: AccessTokenSettings) {
    if (settings.secret === '') {
      // An empty secret would make every token check fail (or worse); stop at start-up instead.
      throw new TypeError('access tokens need a non-empty token secret');
    }
    this.#verification = {
      key: createSecretKey(Buffer.from(settings.secret, 'utf8')),
      issuer: settings.issuer,
      audience: settings.audience,
    };
  }

  /** The user id of a valid token; otherwise the 401 DomainError that says why. */
  subject(token: string): string {
    const known = this.#verified.get(token);
    if (known !== undefined) {
      if (Date.now() < known.expiresAtMs) return known.subject;
      this.#verified.delete(token);
    }
    const { subject, expiresAt } = verifyAccessToken(token, this.#verification);
    if (this.#verified.size >= VERIFIED_TOKENS_KEPT) {
      const oldest = this.#verified.keys().next();
      if (oldest.done !== true) this.#verified.delete(oldest.value);
    }
    this.#verified.set(token, { subject, expiresAtMs: expiresAt * 1_000 });
    return subject;
  }

  /** The user id of a valid token, or undefined for any token that is not. */
  validSubject(token: string): string | undefined {
    try {
      return this.subject(token);
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
  }
}
