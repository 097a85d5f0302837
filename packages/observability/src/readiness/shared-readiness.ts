import type { Readiness } from './readiness-check.js';

/** How old a readiness answer may be, by default: probes every second cost one round of checks. */
export const DEFAULT_READINESS_MAX_AGE_MS = 1_000;

/**
 * `check` behind a short-lived shared result: callers while a round of checks runs wait for that
 * round, and callers within `maxAgeMs` of its end get its result. So `/readyz` costs at most one
 * round of node calls and queries per `maxAgeMs` (plus the round's own duration), whatever the
 * request rate: anonymous probes cannot spend an operator's metered RPC quota.
 */
export function sharedReadiness(
  check: () => Promise<Readiness>,
  maxAgeMs = DEFAULT_READINESS_MAX_AGE_MS,
  now: () => number = performance.now.bind(performance),
): () => Promise<Readiness> {
  let latest: { result: Promise<Readiness>; settledAt: number | undefined } | undefined;
  return () => {
    const fresh =
      latest !== undefined &&
      (latest.settledAt === undefined || now() - latest.settledAt <= maxAgeMs);
    if (fresh && latest !== undefined) return latest.result;
    const round: { result: Promise<Readiness>; settledAt: number | undefined } = {
      result: check(),
      settledAt: undefined,
    };
    const settle = () => {
      round.settledAt = now();
    };
    // `checkReadiness` never rejects (a failed check is a result); were it to, the next caller
    // starts a new round rather than inheriting the failure.
    round.result.then(settle, () => {
      if (latest === round) latest = undefined;
    });
    latest = round;
    return round.result;
  };
}
