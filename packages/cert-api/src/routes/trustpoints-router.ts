import { DomainError, textProblem } from '@trustpoint/domain';
import {
  ConcurrencyLimit,
  optionalAuthenticate,
  rateLimit,
  rawJsonOf,
  requireScope,
  sendSuccess,
  type AuthenticateOptions,
  type RateLimitOptions,
} from '@trustpoint/http';
import {
  isObject,
  jsonAmbiguity,
  MAX_CERTIFICATE_TRUSTPOINTS,
  unwrapEnvelope,
  VerifierInputError,
  type Trust,
} from '@trustpoint/verifier';
import { Router } from 'express';

import type { CertificateServices } from '../certificates/certificate-services.js';
import {
  serviceVerdictOf,
  verifyCertificate,
  verifyCertificateJson,
} from '../certificates/verify-certificate.js';
import { certificateAskedFor } from './certificate-lookup-params.js';
import {
  POSTED_VERIFICATION_MAX_WAIT_MS,
  POSTED_VERIFICATION_RETRY_AFTER_SECONDS,
  postedVerificationLimits,
  type PostedVerificationLimits,
} from './posted-verification-limits.js';

/**
 * The first string (a member name or a value) of a JSON value the shared text rule refuses. Walked
 * with a stack of its own, not by recursion: a body nested 100,000 deep is a refusal, not a crash.
 */
function firstUnstorableText(
  value: unknown,
  path: string,
): { field: string; error: string } | undefined {
  const pending: [unknown, string][] = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, at] = next;
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem !== undefined) return { field: at, error: problem };
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const inKey = textProblem(key);
        const childPath = Array.isArray(item) ? `${at}[${key}]` : `${at}.${key}`;
        if (inKey !== undefined) return { field: childPath, error: inKey };
        pending.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/**
 * A posted copy writing a number with more digits than its value holds (`9.0000000000000001`,
 * read and hashed as 9): refused with a 400 naming it, as every verifier refuses such a file (a
 * member named twice was refused as the body was read).
 */
function refuseInexactNumber(raw: Buffer | undefined): void {
  const ambiguity = raw === undefined ? undefined : jsonAmbiguity(raw.toString('utf8'));
  if (ambiguity?.kind !== 'inexactNumber') return;
  throw new DomainError('validation', {
    detail: 'the body is not a certificate JSON',
    errors: [
      {
        field: `body${ambiguity.path.slice(1)}`,
        error: `Written ${ambiguity.written}, which reads as ${ambiguity.reads}: a number must be written as the value it holds (readers disagree on which value it holds)`,
      },
    ],
  });
}

/**
 * A posted copy listing more trustpoints than a certificate may: refused (400 naming the field)
 * before anything else is done with it, as every node read costs the service.
 */
function refuseTooManyTrustpoints(body: unknown): void {
  const certificate = unwrapEnvelope(body);
  if (!isObject(certificate) || !Array.isArray(certificate.metadata)) return;
  const listed = certificate.metadata.length;
  if (listed <= MAX_CERTIFICATE_TRUSTPOINTS) return;
  throw new DomainError('validation', {
    detail: 'the posted copy lists too many trustpoints',
    errors: [
      {
        field: certificate === body ? 'body.metadata' : 'body.data.metadata',
        error: `Lists ${String(listed)} trustpoints; a certificate lists at most ${String(MAX_CERTIFICATE_TRUSTPOINTS)}`,
      },
    ],
  });
}

export interface PostedVerificationOptions {
  /** Per client address and at once; `DEFAULT_POSTED_VERIFICATION_LIMITS` for each left out. */
  limits?: Partial<PostedVerificationLimits>;
  /** Where the per-address counts live (`DatabaseRateLimitStore`), shared by every process; memory by default. */
  rateLimitStore?: RateLimitOptions['store'];
}

/**
 * GET /trustpoints/{type}/{id}: the service verifies a stored certificate's trustpoints on chain.
 * POST /trustpoints/verification: the same verification of a certificate JSON a holder posts (the
 * copy in their hands, which may be older than the stored record or changed), with no token.
 * Both give the verdict of `@trustpoint/verifier` with the service's own registries as the trust.
 * As anyone may post, each copy's work is bounded (at most `MAX_CERTIFICATE_TRUSTPOINTS`
 * trustpoints), and so are the copies: per client address and minute (429), and at once in this
 * process (503), so that posted copies cannot take the node or the process from everything else.
 */
export function trustpointsRouter(
  services: CertificateServices,
  auth: AuthenticateOptions,
  /** The service's own trust (`serviceTrust`). */
  trust: () => Promise<Trust>,
  posted: PostedVerificationOptions = {},
): Router {
  const limits = postedVerificationLimits(posted.limits);
  // No `tokens`: the route takes none, so every caller counts by its address.
  const perAddress = rateLimit({
    windowMs: 60_000,
    limit: limits.perMinute,
    store: posted.rateLimitStore,
  });
  const atOnce = new ConcurrencyLimit({
    name: 'posted verifications',
    running: limits.atOnce,
    waiting: limits.atOnce,
    maxWaitMs: POSTED_VERIFICATION_MAX_WAIT_MS,
    retryAfterSeconds: POSTED_VERIFICATION_RETRY_AFTER_SECONDS,
  });
  const router = Router();
  router.get(
    '/trustpoints/:type/:id',
    optionalAuthenticate(auth),
    requireScope('read'),
    async (req, res) => {
      const record = await certificateAskedFor(services, req, res);
      const verification = await verifyCertificate(services, record, await trust());
      sendSuccess(
        res,
        200,
        verification.verified ? 'Certificate verified' : 'Certificate not verified',
        verification,
      );
    },
  );
  router.post('/trustpoints/verification', perAddress, async (req, res) => {
    const body: unknown = req.body;
    // A member named twice was refused as the body was read (`jsonBody`), as for every route.
    refuseTooManyTrustpoints(body);
    refuseInexactNumber(rawJsonOf(req));
    // The shared text rule, as for every body the APIs take: nothing unstorable is even hashed.
    const unstorable = firstUnstorableText(body, 'body');
    if (unstorable !== undefined) {
      throw new DomainError('validation', {
        detail: 'the body is not a certificate JSON',
        errors: [unstorable],
      });
    }
    // A caller gone before its turn costs nothing more.
    const gone = new AbortController();
    res.once('close', () => {
      gone.abort();
    });
    let result;
    try {
      result = await atOnce.run(
        async () => verifyCertificateJson(services, body, await trust()),
        gone.signal,
      );
    } catch (error) {
      // A JSON nested deeper than the rules' recursion goes is no certificate either.
      if (!(error instanceof VerifierInputError) && !(error instanceof RangeError)) throw error;
      throw new DomainError('validation', {
        detail: 'the body is not a certificate JSON',
        errors: [
          {
            field: 'body',
            // The stack's own limit; any other range refused is said as it is.
            error:
              error instanceof RangeError && /call stack/i.test(error.message)
                ? 'nested too deeply'
                : error.message,
          },
        ],
      });
    }
    sendSuccess(
      res,
      200,
      result.verified ? 'Certificate verified' : `Certificate not verified: ${result.verdict}`,
      {
        certID: result.certID,
        verified: result.verified,
        revoked: result.revoked,
        ...serviceVerdictOf(result),
        hash: result.hash,
        trustpoints: result.trustpoints.map((trustpoint) => ({
          type: trustpoint.type,
          networkId: trustpoint.networkId,
          timestamp: trustpoint.timestamp,
          ...(trustpoint.smartContract === undefined
            ? {}
            : { smartContract: trustpoint.smartContract }),
          ...(trustpoint.transactionHash === undefined
            ? {}
            : { transactionHash: trustpoint.transactionHash }),
          trustPointHash: trustpoint.trustPointHash,
          expectedHash: trustpoint.expectedHash,
          ...(trustpoint.onChain === undefined ? {} : { onChain: trustpoint.onChain }),
          ...(trustpoint.chainTime === undefined
            ? {}
            : {
                chainTime: {
                  blockNumber: trustpoint.chainTime.blockNumber,
                  blockHash: trustpoint.chainTime.blockHash,
                  timestamp: trustpoint.chainTime.timestamp,
                },
              }),
          verdict: trustpoint.verdict,
          detail: trustpoint.detail,
        })),
      },
    );
  });
  return router;
}
