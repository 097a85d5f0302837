/** One thing the process needs to serve: the database, a network's node, its registrar's funds. */
export interface ReadinessCheck {
  /** Stable and safe to show anyone: `database`, `migrations`, `network:31337:node`, ... */
  name: string;
  /** Resolves with a short detail when ready; throws (or rejects) with why not. */
  run(): Promise<string | undefined>;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  /** Why it failed, or what it found; never a secret (no URLs with credentials, no keys). */
  detail?: string;
  durationMs: number;
}

export interface Readiness {
  ready: boolean;
  checks: CheckResult[];
}

/** A check that has not answered by then counts as failed: a hung node must not hang /readyz. */
export const DEFAULT_CHECK_TIMEOUT_MS = 3_000;

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`no answer within ${String(timeoutMs)} ms`));
    }, timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

/** Runs every check at once; ready when all pass. A failed check's message is its detail. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = DEFAULT_CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async (check): Promise<CheckResult> => {
      const started = performance.now();
      try {
        const detail = await withTimeout(check.run(), timeoutMs);
        return {
          name: check.name,
          ok: true,
          ...(detail === undefined ? {} : { detail }),
          durationMs: Math.round(performance.now() - started),
        };
      } catch (error) {
        return {
          name: check.name,
          ok: false,
          detail: error instanceof Error ? error.message : String(error),
          durationMs: Math.round(performance.now() - started),
        };
      }
    }),
  );
  return { ready: results.every((result) => result.ok), checks: results };
}
