import { createSecretKey } from 'node:crypto';

import type { BearerTokens, Credential } from './bearer-tokens.js';
import {
  verifyAccessToken,
  type TokenVerification,
  type VerifiedToken,
} from './verify-access-token.js';

export interface AccessTokenSettings {
  /** The HS256 secret the tokens are signed with. */
  secret: string;
  issuer: string;
  audience: string;
}

/** Most tokens remembered as verified; beyond it the oldest is forgotten first. */
const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * The service's own access tokens: checks them, and remembers those it accepted with their claims
 * and expiry. A client sends the same token with every request, and the HMAC check is a good part
 * of a small request's cost. Only exact token strings verified with this key are remembered, and
 * each only until its expiry, when it is checked afresh (and found expired). A remembered token
 * answers without waiting on anything but a resolved promise.
 */
export class AccessTokens implements BearerTokens {
  readonly #verification: TokenVerification;
  readonly #verified = new Map<string, VerifiedToken>();

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

  /** The claims of a valid token; otherwise rejects with the 401 DomainError that says why. */
  async verify(token: string): Promise<VerifiedToken> {
    const known = this.#verified.get(token);
    if (known !== undefined) {
      if (Date.now() < known.expiresAt * 1_000) return known;
      this.#verified.delete(token);
    }
    const verified = await verifyAccessToken(token, this.#verification);
    if (this.#verified.size >= VERIFIED_TOKENS_KEPT) {
      const oldest = this.#verified.keys().next();
      if (oldest.done !== true) this.#verified.delete(oldest.value);
    }
    this.#verified.set(token, verified);
    return verified;
  }

  /** The user id of a valid token; otherwise rejects with the 401 DomainError that says why. */
  async subject(token: string): Promise<string> {
    return (await this.verify(token)).subject;
  }

  /** The user, scopes (full access without a `scope` claim) and expiry of a valid token. */
  async credential(token: string): Promise<Credential> {
    const verified = await this.verify(token);
    return {
      subject: verified.subject,
      scopes: verified.scopes,
      apiKeyId: verified.clientId,
      expiresAt: new Date(verified.expiresAt * 1_000),
    };
  }
}
