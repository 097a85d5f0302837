import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_PIN_ATTEMPT_LIMITS,
  DEFAULT_POSTED_VERIFICATION_LIMITS,
  publicSigningKeyOf,
  type JWK,
  type PinAttemptLimits,
  type PostedVerificationLimits,
  type PublicChain,
  type S3FileStoreSettings,
  s3SettingsFromEnv,
  verifierPublicEndpointsFromEnv,
} from '@trustpoint/cert-api';
import { DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS } from '@trustpoint/db';
import {
  DEFAULT_IDEMPOTENCY_SETTINGS,
  parseCorsOrigins,
  parseTrustProxy,
  type CorsOrigins,
  type IdempotencySettings,
  type TrustProxy,
} from '@trustpoint/http';
import { parseOidcIssuers, type OidcIssuerConfig } from '@trustpoint/identity';
import pino, { type LevelWithSilent } from 'pino';
import { RoleConfigError } from './role-config-error.js';

/** Everything the embedded set-up needs, read once from the environment with working defaults. */
export interface LauncherConfig {
  /** Where the chain journal, the embedded database, deployments and secrets live. */
  dataDir: string;
  chainHost: string;
  chainPort: number;
  /** Where the APIs listen. */
  apiHost: string;
  /** The lowest level of the JSON logs on standard output (`LOG_LEVEL`, info). */
  logLevel: LevelWithSilent;
  certApiPort: number;
  trackApiPort: number;
  /**
   * The service's public origin (`TRUSTPOINT_PUBLIC_URL`): what its trust document names and
   * verifiers trust. Default the certificate API's own local origin.
   */
  publicUrl: string;
  /** The operator's display name in the trust document (`TRUSTPOINT_NAME`). */
  serviceName: string;
  /** A PostgreSQL server to use instead of the embedded database. */
  databaseUrl: string | undefined;
  /**
   * The networks to anchor on (`TRUSTPOINT_NETWORKS_FILE`); without one, the embedded chain only.
   * With one, the embedded chain runs only when the file names it (see `wantsEmbeddedChain`).
   */
  networksFile: string | undefined;
  /** Private key of qualified signatures (PEM or JWK); otherwise one kept in the secrets file. */
  signingKey?: string | undefined;
  /**
   * The secrets every process of one deployment must share, from the environment
   * (`TRUSTPOINT_JWT_SECRET`, `TRUSTPOINT_PIN_KEY`) so processes on several hosts agree without
   * sharing a data directory; otherwise those of the data directory's secrets file.
   */
  sharedSecrets?: { jwtSecret?: string; pinKey?: string };
  /**
   * Public JWKs of earlier signing keys (`SIGNING_KEYS_RETIRED`): their signatures stay valid and
   * they stay in the JWKS after a key rotation.
   */
  retiredSigningKeys: JWK[];
  /** API requests each user (or address, without a token) may make per minute. */
  requestsPerMinute: number;
  /** Largest file upload accepted, in bytes (`MAX_FILE_BYTES`, default 2 GiB). */
  maxFileBytes: number;
  /** Non-public addresses or CIDR ranges URL certificates may fetch (`URL_FETCH_ALLOW`). */
  urlFetchAllow: string[];
  /** Any non-public address may be fetched (`URL_FETCH_ALLOW_PRIVATE=true`); off by default. */
  urlFetchAllowPrivate: boolean;
  /**
   * The DNS servers that prove customers' domains (`TRUSTPOINT_DNS_SERVERS`, `host` or
   * `host:port`, comma-separated); the system's when empty.
   */
  dnsServers: string[];
  /**
   * Wrong PINs answered before 429: per certificate (`PIN_ATTEMPTS_PER_CERTIFICATE`, 10) and per
   * client address (`PIN_ATTEMPTS_PER_ADDRESS`, 50) in a window (`PIN_ATTEMPTS_WINDOW_SECONDS`, 3600).
   */
  pinAttempts: PinAttemptLimits;
  /**
   * Certificate copies anyone may post to `POST /cert/v2/trustpoints/verification`: per client
   * address and minute (`VERIFICATIONS_PER_MINUTE`, 30), and checked at once per process
   * (`VERIFICATIONS_AT_ONCE`, 4; as many more wait up to 5 s, any other is a 503).
   */
  postedVerifications: PostedVerificationLimits;
  /**
   * External OpenID Connect providers whose tokens the APIs accept (`OIDC_ISSUERS`, a JSON array
   * of `{issuer, audience, userClaim?, userIdPrefix?, algorithms?, provision?}`); none by default.
   */
  oidcIssuers: OidcIssuerConfig[];
  /**
   * Express's `trust proxy` (`TRUST_PROXY`): which load balancers' X-Forwarded-For names the
   * client, for rate limits and logs. `false` by default: the client is the socket's peer.
   */
  trustProxy: TrustProxy;
  /**
   * Origins whose web pages may read the public routes (`CORS_ORIGINS`, comma-separated): any
   * (`*`) by default, as those answers are public; never credentials, never the private routes.
   */
  corsOrigins: CorsOrigins;
  /**
   * How long a stopping process (SIGTERM, Ctrl-C) lets requests in flight finish before it cuts
   * their connections (`SHUTDOWN_TIMEOUT_SECONDS`, 10 s).
   */
  shutdownTimeoutMs: number;
  /**
   * Whether `serve <role>` applies pending migrations at start (`MIGRATE_AT_START`, true). With
   * false a role whose database lacks migrations refuses to start: run `trustpoint migrate` first.
   */
  migrateAtStart: boolean;
  /** When set (`METRICS_TOKEN`), `/metrics` needs it as a bearer token; unset, it is open. */
  metricsToken?: string | undefined;
  /**
   * Where `trustpoint serve anchor` serves /healthz, /readyz and /metrics (`HEALTH_HOST`, default
   * API_HOST; `HEALTH_PORT`, default 9464).
   */
  healthHost: string;
  healthPort: number;
  /** The bucket of published files (`FILES_S3_*`); undefined: the data directory's `files`. */
  filesS3?: S3FileStoreSettings | undefined;
  /**
   * How far (seconds) an asset's evidence timestamps may run ahead of the clock under a burst
   * (`EVIDENCE_MAX_AHEAD_SECONDS`, 60): each evidence of an asset takes the next free second;
   * beyond the margin, 429 with Retry-After.
   */
  maxEvidenceAheadSeconds: number;
  /**
   * `Idempotency-Key`s: kept `IDEMPOTENCY_KEY_RETENTION_HOURS` (24) from their first request; a
   * running request holds its key `IDEMPOTENCY_KEY_LEASE_SECONDS` (30) past its last renewal, so a
   * retry takes over the key of a request whose process died about that long after.
   */
  idempotency: IdempotencySettings;
  /**
   * The public endpoints of well-known chains the web verifier may ask for a network its user
   * lists no node for (`TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS`: a JSON file, or `none`); the
   * verifier's built-in list when undefined.
   */
  verifierPublicEndpoints?: readonly PublicChain[] | undefined;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) {
    throw new RoleConfigError(`${name} must be a TCP port (1-65535), got "${value}"`);
  }
  return parsed;
}

/** `TRUSTPOINT_JWT_SECRET` (at least 32 characters) and `TRUSTPOINT_PIN_KEY` (32 bytes, base64url). */
function sharedSecrets(env: NodeJS.ProcessEnv): { jwtSecret?: string; pinKey?: string } {
  const jwtSecret = env.TRUSTPOINT_JWT_SECRET === '' ? undefined : env.TRUSTPOINT_JWT_SECRET;
  const pinKey = env.TRUSTPOINT_PIN_KEY === '' ? undefined : env.TRUSTPOINT_PIN_KEY;
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new RoleConfigError(
      'TRUSTPOINT_JWT_SECRET must be at least 32 characters (e.g. openssl rand -base64 32)',
    );
  }
  if (
    pinKey !== undefined &&
    (!/^[A-Za-z0-9_-]+={0,2}$/.test(pinKey) || Buffer.from(pinKey, 'base64url').length !== 32)
  ) {
    throw new RoleConfigError(
      'TRUSTPOINT_PIN_KEY must be 32 bytes in base64url (e.g. openssl rand 32 | basenc --base64url)',
    );
  }
  return {
    ...(jwtSecret === undefined ? {} : { jwtSecret }),
    ...(pinKey === undefined ? {} : { pinKey }),
  };
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) {
    throw new RoleConfigError(`${name} must be a positive integer, got "${value}"`);
  }
  return parsed;
}

function flag(value: string | undefined, name: string, fallback = false): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'false') return false;
  if (value === 'true') return true;
  throw new RoleConfigError(`${name} must be true or false, got "${value}"`);
}

/** `TRUSTPOINT_DNS_SERVERS`: IP addresses, each with an optional `:port` (`[v6]:port`). */
function dnsServerList(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((entry) => entry.trim());
  return entries
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(entry);
      const address = match?.[1] ?? match?.[2] ?? '';
      const port = match?.[3] === undefined ? undefined : Number(match[3]);
      if (isIP(address) === 0 || (port !== undefined && (port < 1 || port > 65535))) {
        throw new RoleConfigError(
          `TRUSTPOINT_DNS_SERVERS must list IP addresses with an optional :port, got "${entry}"`,
        );
      }
      return entry;
    });
}

/** A comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). */
function addressList(value: string | undefined, name: string): string[] {
  const entries = (value ?? '').split(',').map((entry) => entry.trim());
  return entries
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [address = '', bits, ...rest] = entry.split('/');
      const family = isIP(address);
      const maxBits = family === 6 ? 128 : 32;
      const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
      if (family === 0 || !validBits || rest.length > 0) {
        throw new RoleConfigError(`${name} must list IP addresses or CIDR ranges, got "${entry}"`);
      }
      return entry;
    });
}

/** pino's levels, most severe first, and `silent` (no log at all). */
const LOG_LEVELS = [
  ...Object.entries(pino.levels.values)
    .sort(([, a], [, b]) => b - a)
    .map(([level]) => level),
  'silent',
];

/**
 * `LOG_LEVEL`, checked here: pino itself refuses an unknown level with a message that names no
 * variable ("default level:loud must be included in custom levels").
 */
function logLevel(value: string | undefined): LevelWithSilent {
  if (value === undefined || value === '') return 'info';
  if (!LOG_LEVELS.includes(value)) {
    throw new RoleConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return value as LevelWithSilent;
}

/**
 * A setting read by another package's parser: its refusal (an Error naming the variable) stops the
 * start as one of this file's own does, in one line.
 */
function setting<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Error && !(error instanceof RoleConfigError)) {
      throw new RoleConfigError(error.message, { cause: error });
    }
    throw error;
  }
}

/** JWK members that only a private or secret key has. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJwk(value: unknown): value is JWK {
  return isObject(value) && typeof value.kty === 'string';
}

/**
 * Public keys of earlier signing keys: a JSON array of JWKs or a JWK Set, such as the JWKS the
 * service served before the rotation. Private keys are refused: a retired key only verifies, and
 * its private half belongs nowhere near the configuration. Messages never echo a key.
 */
function retiredSigningKeys(value: string | undefined, name: string): JWK[] {
  if (value === undefined || value.trim() === '') return [];
  const shape = `${name} must be a JSON array of public JWKs or a JWK Set ({"keys": [...]})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new RoleConfigError(`${shape}; it is not valid JSON`);
  }
  const keys: unknown = isObject(parsed) ? parsed.keys : parsed;
  if (!Array.isArray(keys)) throw new RoleConfigError(shape);
  return keys.map((key: unknown, index) => {
    const which = `${name}: key ${String(index + 1)}`;
    if (!isJwk(key)) throw new RoleConfigError(`${which} is not a JWK object (with a "kty")`);
    if (PRIVATE_JWK_MEMBERS.some((member) => member in key)) {
      throw new RoleConfigError(`${which} holds a private or secret key; list public keys only`);
    }
    try {
      publicSigningKeyOf(key);
    } catch (error) {
      throw new RoleConfigError(`${which} is not usable: ${(error as Error).message}`);
    }
    return key;
  });
}

/** Where the user ran `npm start` (`INIT_CWD`), rather than this package's folder. */
const startedIn = (env: NodeJS.ProcessEnv) => env.INIT_CWD ?? process.cwd();

/** `TRUSTPOINT_DATA_DIR`, or `.trustpoint` where the user started the service. */
export function dataDirOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.TRUSTPOINT_DATA_DIR ?? join(startedIn(env), '.trustpoint');
}

/** `TRUSTPOINT_PUBLIC_URL` reduced to its origin, else the certificate API's local origin. */
function publicUrlOf(env: NodeJS.ProcessEnv): string {
  const given = env.TRUSTPOINT_PUBLIC_URL;
  if (given === undefined || given === '') {
    // Where the API listens, as a client reaches it: a wildcard (all interfaces, as a container
    // listens) is no address anyone can reach, so the origin certificates name is this machine's
    // loopback, as `npm start` issues; an IPv6 address in brackets.
    const host = env.API_HOST ?? '127.0.0.1';
    const reachable = ['0.0.0.0', '::', '[::]', ''].includes(host) ? '127.0.0.1' : host;
    const inUrl =
      reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable;
    return `http://${inUrl}:${env.CERT_API_PORT ?? '8080'}`;
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new RoleConfigError(`TRUSTPOINT_PUBLIC_URL must be an http(s) URL, not ${given}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new RoleConfigError(`TRUSTPOINT_PUBLIC_URL must be an http(s) URL, not ${given}`);
  }
  return url.origin;
}

const chainHostOf = (env: NodeJS.ProcessEnv) => env.CHAIN_HOST ?? '127.0.0.1';
const chainPortOf = (env: NodeJS.ProcessEnv) => port(env.CHAIN_PORT, 8545, 'CHAIN_PORT');

/**
 * `DATABASE_URL` as given (unset or empty: the embedded database), when it is a PostgreSQL URL
 * (`postgres://` or `postgresql://`); anything else stops the start naming the variable, never
 * its value (it holds a password).
 */
function databaseUrlOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const scheme = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (scheme === 'postgres:' || scheme === 'postgresql:') return value;
  throw new RoleConfigError(
    `DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database), not ${scheme === undefined ? 'text that is no URL' : `a ${scheme}// URL`}`,
  );
}

/**
 * The local chain's node as the roles reach it without a networks file (`CHAIN_HOST`, 127.0.0.1;
 * `CHAIN_PORT`, 8545): the one `serve all` starts, or `local-chain.js` run beside the roles.
 */
export function localChainUrlOf(env: NodeJS.ProcessEnv = process.env): string {
  return `http://${chainHostOf(env)}:${String(chainPortOf(env))}`;
}

export function readLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  return {
    dataDir: dataDirOf(env),
    chainHost: chainHostOf(env),
    chainPort: chainPortOf(env),
    apiHost: env.API_HOST ?? '127.0.0.1',
    logLevel: logLevel(env.LOG_LEVEL),
    certApiPort: port(env.CERT_API_PORT, 8080, 'CERT_API_PORT'),
    trackApiPort: port(env.TRACK_API_PORT, 8081, 'TRACK_API_PORT'),
    publicUrl: publicUrlOf(env),
    serviceName: env.TRUSTPOINT_NAME || 'Trustpoint (local)',
    databaseUrl: databaseUrlOf(env.DATABASE_URL),
    networksFile:
      env.TRUSTPOINT_NETWORKS_FILE === undefined || env.TRUSTPOINT_NETWORKS_FILE === ''
        ? undefined
        : resolve(startedIn(env), env.TRUSTPOINT_NETWORKS_FILE),
    signingKey: env.SIGNING_KEY === '' ? undefined : env.SIGNING_KEY,
    sharedSecrets: sharedSecrets(env),
    retiredSigningKeys: retiredSigningKeys(env.SIGNING_KEYS_RETIRED, 'SIGNING_KEYS_RETIRED'),
    requestsPerMinute: positiveInteger(env.RATE_LIMIT_PER_MINUTE, 6_000, 'RATE_LIMIT_PER_MINUTE'),
    maxFileBytes: positiveInteger(env.MAX_FILE_BYTES, DEFAULT_MAX_FILE_BYTES, 'MAX_FILE_BYTES'),
    urlFetchAllow: addressList(env.URL_FETCH_ALLOW, 'URL_FETCH_ALLOW'),
    urlFetchAllowPrivate: flag(env.URL_FETCH_ALLOW_PRIVATE, 'URL_FETCH_ALLOW_PRIVATE'),
    dnsServers: dnsServerList(env.TRUSTPOINT_DNS_SERVERS),
    oidcIssuers: setting(() => parseOidcIssuers(env.OIDC_ISSUERS, 'OIDC_ISSUERS')),
    trustProxy: setting(() => parseTrustProxy(env.TRUST_PROXY, 'TRUST_PROXY')),
    corsOrigins: setting(() => parseCorsOrigins(env.CORS_ORIGINS)),
    shutdownTimeoutMs:
      positiveInteger(env.SHUTDOWN_TIMEOUT_SECONDS, 10, 'SHUTDOWN_TIMEOUT_SECONDS') * 1_000,
    migrateAtStart: flag(env.MIGRATE_AT_START, 'MIGRATE_AT_START', true),
    metricsToken: env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN,
    healthHost: env.HEALTH_HOST || (env.API_HOST ?? '127.0.0.1'),
    healthPort: port(env.HEALTH_PORT, 9464, 'HEALTH_PORT'),
    maxEvidenceAheadSeconds: positiveInteger(
      env.EVIDENCE_MAX_AHEAD_SECONDS,
      DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
      'EVIDENCE_MAX_AHEAD_SECONDS',
    ),
    filesS3: setting(() => s3SettingsFromEnv(env)),
    verifierPublicEndpoints: setting(() => verifierPublicEndpointsFromEnv(env)),
    idempotency: {
      retentionMs:
        positiveInteger(
          env.IDEMPOTENCY_KEY_RETENTION_HOURS,
          DEFAULT_IDEMPOTENCY_SETTINGS.retentionMs / 3_600_000,
          'IDEMPOTENCY_KEY_RETENTION_HOURS',
        ) * 3_600_000,
      leaseMs:
        positiveInteger(
          env.IDEMPOTENCY_KEY_LEASE_SECONDS,
          DEFAULT_IDEMPOTENCY_SETTINGS.leaseMs / 1_000,
          'IDEMPOTENCY_KEY_LEASE_SECONDS',
        ) * 1_000,
    },
    postedVerifications: {
      perMinute: positiveInteger(
        env.VERIFICATIONS_PER_MINUTE,
        DEFAULT_POSTED_VERIFICATION_LIMITS.perMinute,
        'VERIFICATIONS_PER_MINUTE',
      ),
      atOnce: positiveInteger(
        env.VERIFICATIONS_AT_ONCE,
        DEFAULT_POSTED_VERIFICATION_LIMITS.atOnce,
        'VERIFICATIONS_AT_ONCE',
      ),
    },
    pinAttempts: {
      perCertificate: positiveInteger(
        env.PIN_ATTEMPTS_PER_CERTIFICATE,
        DEFAULT_PIN_ATTEMPT_LIMITS.perCertificate,
        'PIN_ATTEMPTS_PER_CERTIFICATE',
      ),
      perAddress: positiveInteger(
        env.PIN_ATTEMPTS_PER_ADDRESS,
        DEFAULT_PIN_ATTEMPT_LIMITS.perAddress,
        'PIN_ATTEMPTS_PER_ADDRESS',
      ),
      windowMs:
        positiveInteger(
          env.PIN_ATTEMPTS_WINDOW_SECONDS,
          DEFAULT_PIN_ATTEMPT_LIMITS.windowMs / 1_000,
          'PIN_ATTEMPTS_WINDOW_SECONDS',
        ) * 1_000,
    },
  };
}
