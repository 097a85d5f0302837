import { findUser, type Queryable } from '@trustpoint/db';
import { DomainError, type ApiScope } from '@trustpoint/domain';
import {
  AccessTokens,
  mintAccessToken,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  type BearerTokens,
  type Credential,
} from '@trustpoint/http';
import { decodeJwt } from 'jose';

import { apiKeyDigest, apiKeyId, looksLikeApiKey } from './api-key-format.js';
import { apiKeyByDigest, apiKeyById, touchApiKey, type ApiKey } from './api-keys.js';
import { OidcIssuer, type OidcKeyFetchOptions } from './oidc-issuer.js';
import type { OidcIssuerConfig } from './oidc-issuer-config.js';
import { provisionUser } from './provision-user.js';

/** Lifetime of a token from the client-credentials endpoint, in seconds. */
export const CLIENT_TOKEN_TTL_SECONDS = 900;

/** Provisioned user ids remembered as existing; beyond it the set starts afresh. */
const KNOWN_USERS_KEPT = 10_000;

export interface IdentitiesOptions {
  knex: Queryable;
  /** The HS256 secret of the service's own tokens. */
  jwtSecret: string;
  /** External OpenID Connect providers whose tokens are accepted (`parseOidcIssuers`). */
  oidcIssuers?: readonly OidcIssuerConfig[];
  /** How the providers' keys are fetched and kept. */
  oidcKeyFetch?: OidcKeyFetchOptions;
  now?: () => number;
}

/** An API key presented as a credential, once checked. */
export type ApiKeyCheck =
  | { ok: true; apiKey: ApiKey }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' };

/**
 * Every kind of bearer token an API accepts, behind one `credential(token)`:
 * - the service's own JWTs (launcher, admin CLI), remembered once verified (`AccessTokens`): full
 *   access unless they carry a `scope` claim;
 * - JWTs from the client-credentials endpoint, or minted through the admin API by a credential
 *   with a key, the same kind with a `client_id` and `scope`: the API key they were exchanged for
 *   or minted with is read on every use, so revoking it ends them at once, and they may do what
 *   both the token's scope and the key allow;
 * - API keys themselves (`tp_live_...`), looked up by digest on every use (no cache), with their
 *   scopes;
 * - JWTs of the configured OpenID Connect providers, routed by their `iss` (`OidcIssuer`).
 * Failures are the spec's 401s: invalid or expired token; an unknown user is left to
 * `authenticate`'s user lookup ("User credentials are wrong"), which also refuses disabled users.
 */
export class Identities implements BearerTokens {
  /** The database the keys and users live in. */
  readonly knex: Queryable;
  readonly #jwtSecret: string;
  readonly #own: AccessTokens;
  readonly #issuers: Map<string, OidcIssuer>;
  readonly #now: () => number;
  readonly #knownUsers = new Set<string>();

  constructor(options: IdentitiesOptions) {
    this.knex = options.knex;
    this.#jwtSecret = options.jwtSecret;
    this.#own = new AccessTokens({
      secret: options.jwtSecret,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
    });
    this.#issuers = new Map(
      (options.oidcIssuers ?? []).map((config) => [
        config.issuer,
        new OidcIssuer(config, options.oidcKeyFetch),
      ]),
    );
    this.#now = options.now ?? Date.now;
  }

  async subject(token: string): Promise<string> {
    return (await this.credential(token)).subject;
  }

  async credential(token: string): Promise<Credential> {
    if (looksLikeApiKey(token)) return this.#apiKeyCredential(token);
    const issuer = this.#issuers.size === 0 ? undefined : this.#externalIssuerOf(token);
    if (issuer !== undefined) return this.#externalCredential(issuer, token);
    const verified = await this.#own.verify(token);
    const expiresAt = new Date(verified.expiresAt * 1_000);
    if (verified.clientId === undefined) {
      return { subject: verified.subject, scopes: verified.scopes, expiresAt };
    }
    const key = await apiKeyById(this.knex, verified.clientId, new Date(this.#now()));
    // The key was revoked or has expired since the token was issued. It may be another user's: a
    // token an administrator's key mints for a user is bound to that key.
    if (key.status !== 'active') {
      throw new DomainError('invalidToken', {
        detail: `API key ${verified.clientId} is ${key.status}`,
      });
    }
    // Another user's key stands behind it only while that user may use it: a disabled user's
    // keys stop at once, and so does what they minted for others.
    if (
      key.apiKey.userId !== verified.subject &&
      (await findUser(this.knex, key.apiKey.userId)) === undefined
    ) {
      throw new DomainError('invalidToken', {
        detail: `API key ${verified.clientId} belongs to a disabled or removed user`,
      });
    }
    const granted = verified.scopes ?? key.apiKey.scopes;
    return {
      subject: verified.subject,
      // Never more than the key holds now, whatever the token says.
      scopes: granted.filter((scope) => key.apiKey.scopes.includes(scope)),
      apiKeyId: key.apiKey.id,
      expiresAt,
    };
  }

  /** Checks an API key as a client credential (`clientId`, when given, must be its id). */
  async checkApiKey(key: string, clientId?: string): Promise<ApiKeyCheck> {
    const id = apiKeyId(key);
    if (id === undefined || (clientId !== undefined && clientId !== id)) {
      return { ok: false, reason: 'malformed' };
    }
    const now = new Date(this.#now());
    const found = await apiKeyByDigest(this.knex, apiKeyDigest(key), now);
    if (found.status !== 'active') return { ok: false, reason: found.status };
    await touchApiKey(this.knex, found.apiKey, now);
    return { ok: true, apiKey: found.apiKey };
  }

  /**
   * Checks the credentials of the token endpoint: an active key with this id whose user exists
   * and is not disabled (`findUser`).
   */
  async checkClientCredentials(clientId: string, key: string): Promise<ApiKeyCheck> {
    const check = await this.checkApiKey(key, clientId);
    if (check.ok && (await findUser(this.knex, check.apiKey.userId)) === undefined) {
      return { ok: false, reason: 'unknown' };
    }
    return check;
  }

  /**
   * A token for the key's user, bound to the key (`client_id`) and to `scopes` (the key's unless
   * narrowed; the caller checks they are the key's or fewer): it lives 15 minutes, or until the
   * key expires if that is sooner.
   */
  async mintClientToken(
    apiKey: ApiKey,
    scopes: readonly ApiScope[] = apiKey.scopes,
  ): Promise<{ accessToken: string; expiresIn: number }> {
    const untilExpiry =
      apiKey.expiresAt === null
        ? Infinity
        : Math.floor((apiKey.expiresAt.getTime() - this.#now()) / 1_000);
    const expiresIn = Math.max(1, Math.min(CLIENT_TOKEN_TTL_SECONDS, untilExpiry));
    const accessToken = await mintAccessToken(this.#jwtSecret, {
      subject: apiKey.userId,
      ttlSeconds: expiresIn,
      clientId: apiKey.id,
      scopes,
    });
    return { accessToken, expiresIn };
  }

  async #apiKeyCredential(key: string): Promise<Credential> {
    const check = await this.checkApiKey(key);
    if (check.ok) {
      return {
        subject: check.apiKey.userId,
        scopes: check.apiKey.scopes,
        apiKeyId: check.apiKey.id,
        expiresAt: check.apiKey.expiresAt,
      };
    }
    if (check.reason === 'expired') {
      throw new DomainError('expiredToken', { detail: 'API key expired' });
    }
    throw new DomainError('invalidToken', { detail: `API key ${check.reason}` });
  }

  /** The configured issuer a JWT claims to come from; undefined for ours and for non-JWTs. */
  #externalIssuerOf(token: string): OidcIssuer | undefined {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    return typeof iss === 'string' ? this.#issuers.get(iss) : undefined;
  }

  async #externalCredential(issuer: OidcIssuer, token: string): Promise<Credential> {
    const { userId, scopes, expiresAt } = await issuer.verify(token);
    const { provision } = issuer.config;
    if (provision !== undefined && !this.#knownUsers.has(userId)) {
      await provisionUser(this.knex, userId, provision, issuer.config.issuer);
      if (this.#knownUsers.size >= KNOWN_USERS_KEPT) this.#knownUsers.clear();
      this.#knownUsers.add(userId);
    }
    return { subject: userId, scopes, expiresAt };
  }
}
