import { DomainError, textProblem } from '@trustpoint/domain';
import {
  clientAddress,
  optionalAuthenticate,
  requireScope,
  optionalCurrentUser,
  sendSuccess,
  validate,
  type AuthenticateOptions,
} from '@trustpoint/http';
import { VerifierInputError, type Trust } from '@trustpoint/verifier';
import { Router } from 'express';
import type { CertificateServices } from '../certificates/certificate-services.js';
import { getCertificate } from '../certificates/get-certificate.js';
import {
  serviceVerdictOf,
  verifyCertificate,
  verifyCertificateJson,
} from '../certificates/verify-certificate.js';
import { lookupParamsSchema, pinQuerySchema } from './certificate-lookup-params.js';

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
 * GET /trustpoints/{type}/{id}: the service verifies a stored certificate's trustpoints on chain.
 * POST /trustpoints/verification: the same verification of a certificate JSON a holder posts (the
 * copy in their hands, which may be older than the stored record or changed), with no token.
 * Both give the verdict of `@trustpoint/verifier` with the service's own registries as the trust.
 */
export function trustpointsRouter(
  services: CertificateServices,
  auth: AuthenticateOptions,
  /** The service's own trust (`serviceTrust`). */
  trust: () => Promise<Trust>,
): Router {
  const router = Router();
  router.get(
    '/trustpoints/:lookup/:id',
    optionalAuthenticate(auth),
    requireScope('read'),
    async (req, res) => {
      const { lookup, id } = validate(lookupParamsSchema, req.params, 'path');
      const { pin } = validate(pinQuerySchema, req.query, 'query');
      const record = await getCertificate(services, optionalCurrentUser(res), lookup, id, {
        pin,
        address: clientAddress(req),
      });
      const verification = await verifyCertificate(services, record, await trust());
      sendSuccess(
        res,
        200,
        verification.verified ? 'Certificate verified' : 'Certificate not verified',
        verification,
      );
    },
  );
  router.post('/trustpoints/verification', async (req, res) => {
    const body: unknown = req.body;
    // The shared text rule, as for every body the APIs take: nothing unstorable is even hashed.
    const unstorable = firstUnstorableText(body, 'body');
    if (unstorable !== undefined) {
      throw new DomainError('validation', {
        detail: 'the body is not a certificate JSON',
        errors: [unstorable],
      });
    }
    let result;
    try {
      result = await verifyCertificateJson(services, body, await trust());
    } catch (error) {
      // A JSON nested deeper than the rules' recursion goes is no certificate either.
      if (!(error instanceof VerifierInputError) && !(error instanceof RangeError)) throw error;
      throw new DomainError('validation', {
        detail: 'the body is not a certificate JSON',
        errors: [
          {
            field: 'body',
            error: error instanceof RangeError ? 'nested too deeply' : error.message,
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
