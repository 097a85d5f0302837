/**
 * What `trustpoint` exits with, so scripts can tell failures apart. Documented in `--help` and in
 * the README; keep the three in step.
 */
export const EXIT = {
  ok: 0,
  /** Anything else: the service failed (5xx) or answered something unexpected. */
  failure: 1,
  /**
   * Bad arguments, found by the command itself or by the service (400), or a configuration a role
   * or `start` cannot start with (`serve cert` without DATABASE_URL, a setting that is not usable).
   */
  usage: 2,
  /** No token, a token the service refuses (401), or a caller without the admin role (403). */
  unauthorized: 3,
  /** The user, plan or key does not exist (404). */
  notFound: 4,
  /** It exists already, or conflicts with what does (409). */
  conflict: 5,
  /** The service could not be reached (not running, wrong --url), or did not answer in time. */
  unreachable: 6,
  /** verify: a hash differs from the rules or the chain (a changed file or JSON), or a signature is invalid. */
  mismatch: 7,
  /** verify: a trustpoint or evidence is not on chain (not found, or not anchored yet). */
  notOnChain: 8,
  /** verify: everything matches the chain, and the certificate was revoked. */
  revoked: 9,
  /**
   * verify: no node given answered for a record, or a signature could not be checked; reconcile:
   * a network's chain could not be read.
   */
  unchecked: 10,
  /** reconcile: the database and the chain disagree (a record missing, mismatched, doubled or orphaned). */
  disagreement: 11,
  /**
   * verify: it matches the chain, but in a registry you do not trust (not pinned by you nor by an
   * origin you trust, held by a development account, or written outside its trusted blocks).
   */
  untrusted: 12,
  /** verify: everything matches and is trusted, but the certificate has expired. */
  expired: 13,
  /**
   * verify: everything matches and is trusted, but whether the certificate was revoked could not
   * be read (no status registry pinned for a network holding it, or it did not answer).
   */
  revocationUnchecked: 14,
  /**
   * verify: it matches the chain in a registry you trust, but the certificate names an issuing
   * origin you do not trust (or one that does not publish that registry).
   */
  issuerUntrusted: 15,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  the service failed or answered something unexpected
  2  bad arguments (found here or by the service: 400), or a configuration serve cannot start with
  3  no token, a refused token (401) or not an admin (403)
  4  not found (404)
  5  already exists or conflicts (409)
  6  the service could not be reached, or did not answer in time (TRUSTPOINT_TIMEOUT_SECONDS, default 30)
  7  verify: MISMATCH (a changed file or JSON, another record on chain, an invalid signature)
  8  verify: a trustpoint or evidence is NOT FOUND on chain (or not anchored yet)
  9  verify: it matches, and the certificate is REVOKED
 10  verify: NOT CHECKED (no node answered, no key set for a signature); reconcile: a chain could not be read
 11  reconcile: the database and the chain DISAGREE (a record missing, mismatched, doubled or orphaned)
 12  verify: it matches the chain but is NOT TRUSTED (a registry nobody you trust publishes; trust an origin
     with \`trustpoint trust add <origin>\` or pin a registry with --contract)
 13  verify: it matches and is trusted, but EXPIRED
 14  verify: it matches and is trusted, but REVOCATION NOT CHECKED (no status registry pinned for a
     network holding it, or none answered)
 15  verify: it matches a registry you trust, but the ISSUER is NOT TRUSTED (the certificate names an
     issuing origin you do not trust, or one that does not publish that registry; trust it with
     \`trustpoint trust add <origin>\`)
Verdicts, the first that applies: mismatch (7), not found (8), not checked (10), not trusted (12),
issuer not trusted (15), revoked (9), revocation not checked (14), expired (13), verified (0).`;

/** The exit code of an HTTP error status from the service. */
export function exitCodeOfStatus(status: number): ExitCode {
  if (status === 400 || status === 422) return EXIT.usage;
  if (status === 401 || status === 403) return EXIT.unauthorized;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  return EXIT.failure;
}
