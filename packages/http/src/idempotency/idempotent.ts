import {
  commitIdempotencyKeys,
  type IdempotencyClaim,
  type Queryable,
  type StoredResponse,
} from '@trustpoint/db';
import { DomainError } from '@trustpoint/domain';
import type { Request, RequestHandler, Response } from 'express';
import { currentUser } from '../current-user.js';
import { currentCredential } from '../require-scope.js';
import { idempotencyKeyOf } from './idempotency-key-header.js';
import type { HeldKey, IdempotencyKeys } from './idempotency-keys.js';
import { jsonBodyDigest, requestFingerprint } from './request-fingerprint.js';

/** The answer headers a replay repeats: the rest (date, length, request id) are the replay's own. */
const REPLAYED_HEADERS = ['location', 'preference-applied', 'retry-after', 'vary'] as const;

/** Longest `Retry-After` of a 409 for a key in use: clients poll rather than sleep a lease away. */
const MAX_RETRY_AFTER_SECONDS = 5;

export interface IdempotentRouteOptions {
  /**
   * Answers a retry of a request that committed its change (`commitIdempotentChange`, naming
   * `resource`) and died before storing its answer: sends the answer the first request would have
   * sent and returns true, or returns false when the resource is gone (withdrawn after a 5xx), and
   * the request runs again. Routes that commit nothing under the key need none.
   */
  recover?: (resource: string, req: Request, res: Response) => Promise<boolean>;
  /**
   * The route reads multipart bodies itself: for a multipart request it calls
   * `beginIdempotentRequest` with the digest of the parts once it has read them (the boundary
   * differs on every attempt). Other requests are claimed before the route, by their JSON body.
   */
  multipart?: boolean;
}

interface PendingKey {
  keys: IdempotencyKeys;
  key: string;
  route: IdempotentRouteOptions;
  held?: HeldKey;
}

const LOCALS_KEY = 'idempotency';

function pendingOf(res: Response): PendingKey | undefined {
  // Only `idempotent` writes this key.
  return res.locals[LOCALS_KEY] as PendingKey | undefined;
}

/**
 * `Idempotency-Key` support for a creating route (after `authenticate`): a retry with the same key
 * and the same request is answered as the first request was and changes nothing; the same key
 * with another request (or from another credential) is a 422; while the first request runs, 409 with
 * `Retry-After`. Keys belong to the caller. Without the header the route runs as it always did.
 *
 * What a crash at each step leaves, and what a retry then gets:
 * 1. Before the claim commits: no row; the retry runs the request.
 * 2. Claimed (`running`), before the change commits: the change rolls back with the process; the
 *    row's lease runs out (`leaseMs` after its last renewal) and a retry takes the key over and
 *    runs the request. Until then retries get 409.
 * 3. The change committed with `commitIdempotentChange` (`committed`, in the same transaction),
 *    before the answer is stored: once the lease runs out, a retry takes the key over and the
 *    route's `recover` answers from the committed resource; nothing is made twice.
 * 4. Answer stored (`completed`), not sent: the retry gets the stored answer.
 * A request that lost its lease while alive (stuck past it) cannot commit any more: the commit
 * names the claim's owner, and it fails with 409 and rolls its change back.
 */
export function idempotent(
  keys: IdempotencyKeys,
  route: IdempotentRouteOptions = {},
): RequestHandler {
  return async (req, res, next) => {
    const key = idempotencyKeyOf(req);
    if (key === undefined) {
      next();
      return;
    }
    res.locals[LOCALS_KEY] = { keys, key, route } satisfies PendingKey;
    const deferred = route.multipart === true && typeof req.is('multipart/*') === 'string';
    if (deferred || (await beginIdempotentRequest(req, res, jsonBodyDigest(req.body)))) next();
  };
}

/**
 * Claims the request's key once its body is known (`bodyDigest`): true when the route must run
 * (the key is this request's now), false when the answer was sent (a replay, or one recovered
 * from a committed change). A request without the header: true, and nothing held.
 */
export async function beginIdempotentRequest(
  req: Request,
  res: Response,
  bodyDigest: string,
): Promise<boolean> {
  const pending = pendingOf(res);
  if (pending === undefined || pending.held !== undefined) return true;
  const { keys, key, route } = pending;
  const outcome = await keys.claim(
    currentUser(res).id,
    key,
    requestFingerprint(req, currentCredential(res), bodyDigest),
  );
  switch (outcome.kind) {
    case 'mismatch':
      throw new DomainError('idempotencyKeyReused', {
        detail: `key ${key} used for another request`,
      });
    case 'running': {
      const seconds = Math.ceil(outcome.retryAfterMs / 1_000);
      res.setHeader('Retry-After', String(Math.min(Math.max(seconds, 1), MAX_RETRY_AFTER_SECONDS)));
      throw new DomainError('idempotencyKeyInUse', { detail: `key ${key} in use` });
    }
    case 'completed':
      replay(res, outcome.response);
      return false;
    case 'recover': {
      hold(res, pending, keys.hold(outcome.claim));
      if (route.recover !== undefined && (await route.recover(outcome.resource, req, res))) {
        return false;
      }
      if (!(await keys.restart(outcome.claim))) {
        throw new DomainError('idempotencyKeyInUse', { detail: `key ${key} taken over` });
      }
      return true;
    }
    case 'claimed':
      hold(res, pending, keys.hold(outcome.claim));
      return true;
  }
}

/** The key the request holds, for its use case to commit with its change. */
export function idempotencyClaimOf(res: Response): IdempotencyClaim | undefined {
  return pendingOf(res)?.held?.claim;
}

/**
 * Inside the transaction of a request's change: records that the change is made, naming what the
 * answer can be rebuilt from (`recover`), so that a crash between the commit and the answer
 * cannot make a retry do it again. Throws 409 (the transaction must roll back) when the request
 * lost its key to a retry meanwhile. Nothing without a key.
 */
export async function commitIdempotentChange(
  /** The transaction of the change. */
  trx: Queryable,
  claim: IdempotencyClaim | undefined,
  resource: string,
): Promise<void> {
  const [refused] = await commitIdempotentChanges(trx, [{ claim, resource }]);
  if (refused !== undefined) throw refused;
}

/** The refusal (409) of a request whose key a retry took over before its change committed. */
export function keyTakenOver(key: string): DomainError {
  return new DomainError('idempotencyKeyInUse', {
    detail: `key ${key} was taken over before the change committed`,
  });
}

/**
 * `commitIdempotentChange` for the requests of a group commit, in one statement: for each, the
 * 409 it must be refused with when it lost its key to a retry, or undefined (its key is committed,
 * or it has none). The transaction goes on for the others.
 */
export async function commitIdempotentChanges(
  trx: Queryable,
  changes: readonly { claim: IdempotencyClaim | undefined; resource: string }[],
): Promise<(DomainError | undefined)[]> {
  const keyed = changes.flatMap(({ claim, resource }, index) =>
    claim === undefined ? [] : [{ claim, resource, index }],
  );
  const held = await commitIdempotencyKeys(trx, keyed);
  const refused: (DomainError | undefined)[] = changes.map(() => undefined);
  keyed.forEach(({ claim, index }, position) => {
    if (held[position] !== true) {
      refused[index] = keyTakenOver(claim.key);
    }
  });
  return refused;
}

/**
 * Captures the request's answer, whichever way it comes (the route's `sendSuccess`, the error
 * handler's error body): it is stored with the key before it is sent.
 */
function hold(res: Response, pending: PendingKey, held: HeldKey): void {
  pending.held = held;
  const send = res.json.bind(res);
  let settled = false;
  res.json = (body: unknown) => {
    if (settled) return send(body);
    settled = true;
    const response: StoredResponse = {
      status: res.statusCode,
      headers: answerHeaders(res),
      // What `res.json` sends: the app sets no JSON replacer or spacing.
      body: JSON.stringify(body),
    };
    void held.settle(response).then(() => send(body));
    return res;
  };
  // An answer that does not go through `res.json` is not kept; the key is left to its lease.
  res.once('finish', () => {
    if (!settled) held.drop();
  });
}

function answerHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** Sends a stored answer again, saying it is a replay (`Idempotent-Replayed`, as Stripe does). */
function replay(res: Response, response: StoredResponse): void {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(response.status).type('application/json').send(response.body);
}
