import {
  Batcher,
  claimIdempotencyKey,
  claimNewIdempotencyKeys,
  completeIdempotencyKeys,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  renewIdempotencyLease,
  restartIdempotencyKey,
  type IdempotencyClaim,
  type IdempotentRequest,
  type Queryable,
  type IdempotencyKeyClaim,
  type StoredResponse,
} from '@trustpoint/db';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { openAnswerBody, sealAnswerBody, type AnswerSealer } from './answer-sealer.js';
import { DEFAULT_IDEMPOTENCY_SETTINGS, type IdempotencySettings } from './idempotency-settings.js';

/** How often a process deletes keys past their retention (when a key is claimed). */
const PRUNE_EVERY_MS = 60_000;

/** A request never holds its key longer than this, whatever it waits for. */
const MAX_HOLD_MS = 3_600_000;

export interface IdempotencyKeysOptions {
  knex: Queryable;
  logger: Logger;
  /**
   * Seals every answer before it is stored (an API key's or a webhook endpoint's creation answer
   * carries its secret), so `idempotency_keys` never holds a secret in clear. Every process of a
   * deployment must seal under the same key, or a retry answered by another process cannot be
   * replayed.
   */
  sealer: AnswerSealer;
  settings?: Partial<IdempotencySettings> | undefined;
  /** Milliseconds since the epoch; the services' clock. */
  now?: (() => number) | undefined;
  /**
   * A test hook, for the crash tests only (`TRUSTPOINT_TEST_KILL_AFTER_COMMIT=1` in the service's
   * environment; no request can set it): the process SIGKILLs itself once a creating request has
   * committed and before its answer is stored or sent. Never set in a deployment.
   */
  killAfterCommit?: boolean | undefined;
}

/** A running request's hold on its key: renewed in the background until it is settled. */
export interface HeldKey {
  claim: IdempotencyClaim;
  /**
   * Stores the answer (or gives the key up after a 5xx); ends the renewals. Never fails: an
   * answer that could not be stored leaves the key to its lease, and a retry then runs the
   * request again or answers from what it committed.
   */
  settle(response: StoredResponse): Promise<void>;
  /** Ends the renewals without an answer (the request's process goes on without one). */
  drop(): void;
}

/** The `Idempotency-Key`s of one API's processes: claims, renewals, answers and the prune. */
export class IdempotencyKeys {
  readonly settings: IdempotencySettings;
  readonly #knex: Queryable;
  readonly #logger: Logger;
  readonly #sealer: AnswerSealer;
  readonly #now: () => number;
  readonly #killAfterCommit: boolean;
  /**
   * The claims and the answers of concurrent requests, each group in one statement committed at
   * once (instead of a transaction per claim and a statement per answer).
   */
  readonly #newKeys: Batcher<IdempotentRequest, boolean>;
  readonly #answers: Batcher<{ claim: IdempotencyClaim; response: StoredResponse }, boolean>;
  #nextPrune = 0;

  constructor(options: IdempotencyKeysOptions) {
    this.#knex = options.knex;
    this.#logger = options.logger;
    this.#sealer = options.sealer;
    this.#now = options.now ?? Date.now;
    this.settings = { ...DEFAULT_IDEMPOTENCY_SETTINGS, ...options.settings };
    this.#killAfterCommit =
      options.killAfterCommit ?? process.env.TRUSTPOINT_TEST_KILL_AFTER_COMMIT === '1';
    const knex = this.#knex;
    this.#newKeys = new Batcher(async (requests) => {
      let claimed: boolean[];
      try {
        claimed = await claimNewIdempotencyKeys(knex, requests);
      } catch {
        // One request can fail the group's statement (its user deleted meanwhile): each is then
        // claimed on its own, and only that one fails.
        claimed = requests.map(() => false);
      }
      return claimed.map((value) => ({ ok: true, value }));
    });
    this.#answers = new Batcher(async (answers) =>
      (await completeIdempotencyKeys(knex, answers)).map((value) => ({ ok: true, value })),
    );
  }

  now(): number {
    return this.#now();
  }

  /**
   * Claims `key` of `userId` for a request, or says what became of the first one (its answer
   * opened, as it was sent).
   */
  async claim(userId: string, key: string, fingerprint: string): Promise<IdempotencyKeyClaim> {
    const now = this.#now();
    this.#pruneNowAndThen(now);
    const request: IdempotentRequest = {
      userId,
      key,
      fingerprint,
      owner: randomUUID(),
      now,
      leaseMs: this.settings.leaseMs,
      retentionMs: this.settings.retentionMs,
    };
    // A new key (nearly every request's) is claimed with the others of its group; a key already
    // used is looked at on its own.
    if (await this.#newKeys.submit(request)) {
      return { kind: 'claimed', claim: { userId, key, owner: request.owner } };
    }
    const outcome = await claimIdempotencyKey(this.#knex, request);
    if (outcome.kind !== 'completed') return outcome;
    let body: string;
    try {
      body = openAnswerBody(this.#sealer, outcome.response.body);
    } catch (error) {
      // Sealed under another key (TRUSTPOINT_PIN_KEY changed, or processes that disagree): the
      // answer cannot be replayed. Nothing of it is logged.
      this.#logger.error(
        { err: error instanceof Error ? error.message : 'unknown' },
        'a stored idempotent answer could not be opened: do all processes share TRUSTPOINT_PIN_KEY?',
      );
      throw new Error('a stored idempotent answer could not be opened');
    }
    return { kind: 'completed', response: { ...outcome.response, body } };
  }

  /** A recovered key whose resource is gone runs again; false when the claim was lost. */
  restart(claim: IdempotencyClaim): Promise<boolean> {
    return restartIdempotencyKey(this.#knex, claim);
  }

  /**
   * Holds a claimed key while its request runs: the lease is renewed every third of itself, so
   * only a dead (or stuck) process loses it.
   */
  hold(claim: IdempotencyClaim): HeldKey {
    const { leaseMs } = this.settings;
    const startedAt = this.#now();
    const timer = setInterval(
      () => {
        if (this.#now() - startedAt > MAX_HOLD_MS) {
          clearInterval(timer);
          return;
        }
        renewIdempotencyLease(this.#knex, claim, this.#now() + leaseMs).then(
          (held) => {
            if (!held) clearInterval(timer);
          },
          (error: unknown) => {
            // A missed renewal only shortens the lease; the next one may succeed.
            this.#logger.warn({ err: error }, 'renewing an idempotency key lease failed');
          },
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    timer.unref();
    return {
      claim,
      drop: () => {
        clearInterval(timer);
      },
      settle: async (response) => {
        clearInterval(timer);
        try {
          await this.#settle(claim, response);
        } catch (error) {
          this.#logger.warn({ err: error }, 'storing an idempotent answer failed');
        }
      },
    };
  }

  async #settle(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    // A 5xx may be retried: the key is given up (or, if the change committed, left for the next
    // retry to answer from it). So is every 429: a rate says when to come back, and running out of
    // credits lasts until credits are granted; neither changed anything, and the same request
    // with the same key must succeed once it can.
    const retryable = response.status >= 500 || response.status === 429;
    if (retryable) {
      await releaseIdempotencyKey(this.#knex, claim, this.#now());
      return;
    }
    if (this.#killAfterCommit && response.status < 300) {
      // Crash point of the tests: the change is committed, its answer neither stored nor sent.
      process.kill(process.pid, 'SIGKILL');
    }
    // Sealed before it leaves the process: no secret in the table, nor in the message of an
    // error of this statement (which names its values) should one be logged.
    await this.#answers.submit({
      claim,
      response: { ...response, body: sealAnswerBody(this.#sealer, response.body) },
    });
  }

  /** Deletes, in the background and at most once a minute per process, keys past retention. */
  #pruneNowAndThen(now: number): void {
    if (now < this.#nextPrune) return;
    this.#nextPrune = now + PRUNE_EVERY_MS;
    pruneIdempotencyKeys(this.#knex, now).catch((error: unknown) => {
      // Expired keys only cost space (a claim ignores them); the next prune takes them.
      this.#logger.warn({ err: error }, 'pruning expired idempotency keys failed');
    });
  }
}
