import { DomainError, isApiScope, sortedScopes, type ApiScope } from '@trustpoint/domain';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

import type { OidcIssuerConfig } from './oidc-issuer-config.js';

/** How the keys of external providers are fetched and kept. */
export interface OidcKeyFetchOptions {
  /** Give up on a discovery document or key set after this long (default 5 s). */
  timeoutMs?: number;
  /** Keys are fetched again after this long even when nothing asks for a new one (default 10 min). */
  cacheMaxAgeMs?: number;
  /**
   * After a fetch, a token with an unknown key id waits at least this long before the keys are
   * fetched again (default 30 s), so forged key ids cannot make the service hammer the provider.
   */
  cooldownMs?: number;
}

/** The provider's discovery document or keys cannot be had: 503, the service's problem. */
function providerUnavailable(detail: string, cause?: unknown): DomainError {
  return new DomainError('identityProviderUnavailable', { detail, cause });
}

/** The scopes of this service a provider's token names; undefined when it names none. */
function scopesOfClaims(payload: JWTPayload): ApiScope[] | undefined {
  const words = [payload.scope, payload.scp].flatMap((claim) => {
    if (typeof claim === 'string') return claim.split(' ');
    if (Array.isArray(claim)) return claim.filter((word) => typeof word === 'string');
    return [];
  });
  const scopes = sortedScopes(words.filter(isApiScope));
  return scopes.length === 0 ? undefined : scopes;
}

/** Failures of jose that are about reaching the provider, not about the token. */
function isKeyFetchFailure(error: unknown): boolean {
  return (
    !(error instanceof errors.JOSEError) ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === 'ERR_JOSE_GENERIC'
  );
}

/**
 * One configured external OpenID Connect provider. Its key set is found through
 * `<issuer>/.well-known/openid-configuration` on first use and fetched by jose's remote key set,
 * which keeps it, fetches it again when a token names a key it does not hold (a rotation: the new
 * key is found, and a removed key stops verifying once the set is fetched again), and waits a
 * cooldown between such fetches.
 */
export class OidcIssuer {
  readonly config: OidcIssuerConfig;
  readonly #fetch: Required<OidcKeyFetchOptions>;
  #keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(config: OidcIssuerConfig, fetchOptions: OidcKeyFetchOptions = {}) {
    this.config = config;
    this.#fetch = {
      timeoutMs: fetchOptions.timeoutMs ?? 5_000,
      cacheMaxAgeMs: fetchOptions.cacheMaxAgeMs ?? 600_000,
      cooldownMs: fetchOptions.cooldownMs ?? 30_000,
    };
  }

  /** The Trustpoint user id a valid token of this issuer names (prefix + the user claim). */
  async userId(token: string): Promise<string> {
    return (await this.verify(token)).userId;
  }

  /**
   * What a valid token of this issuer stands for: the user id (prefix + the user claim), its
   * scopes and expiry. The scopes are those of this service its `scope` claim names (RFC 9068: a
   * space-separated string; `scp` as a string or an array, as some providers write it); a token
   * whose claim names none of them (`openid profile`, the provider's own) or has none keeps full
   * access, as before scopes: the audience is what admits a provider's token here at all.
   */
  async verify(
    token: string,
  ): Promise<{ userId: string; scopes: ApiScope[] | undefined; expiresAt: Date }> {
    const keys = await this.#keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: [...this.config.algorithms],
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) {
        throw new DomainError('expiredToken', { detail: 'provider token expired', cause: error });
      }
      if (isKeyFetchFailure(error)) {
        throw providerUnavailable(`the keys of ${this.config.issuer} could not be fetched`, error);
      }
      throw new DomainError('invalidToken', { detail: 'provider token rejected', cause: error });
    }
    const value = payload[this.config.userClaim];
    if (typeof value !== 'string' || value === '') {
      throw new DomainError('invalidToken', {
        detail: `provider token has no string claim ${this.config.userClaim}`,
      });
    }
    return {
      userId: `${this.config.userIdPrefix}${value}`,
      scopes: scopesOfClaims(payload),
      // `exp` is required above.
      expiresAt: new Date((payload.exp ?? 0) * 1_000),
    };
  }

  /**
   * The remote key set, discovered once. A failed discovery is remembered for the cooldown, so
   * while the provider is down its tokens fail at once rather than each waiting on a timeout;
   * the first token after it tries again.
   */
  #keySet(): Promise<JWTVerifyGetKey> {
    this.#keys ??= this.#discover().catch((error: unknown) => {
      setTimeout(() => {
        this.#keys = undefined;
      }, this.#fetch.cooldownMs).unref();
      throw error;
    });
    return this.#keys;
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const issuer = this.config.issuer;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let document: unknown;
    try {
      const response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.#fetch.timeoutMs),
      });
      if (!response.ok) throw new Error(`${url} answered ${String(response.status)}`);
      document = await response.json();
    } catch (error) {
      throw providerUnavailable(`discovery of ${issuer} failed`, error);
    }
    const { issuer: claimed, jwks_uri: jwksUri } = (document ?? {}) as Record<string, unknown>;
    // OpenID Connect Discovery 4.3: the document must name the issuer it was fetched for.
    if (claimed !== issuer) {
      throw providerUnavailable(`discovery of ${issuer} names another issuer (${String(claimed)})`);
    }
    if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri)) {
      throw providerUnavailable(`discovery of ${issuer} has no usable jwks_uri`);
    }
    return createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: this.#fetch.timeoutMs,
      cacheMaxAge: this.#fetch.cacheMaxAgeMs,
      cooldownDuration: this.#fetch.cooldownMs,
    });
  }
}
