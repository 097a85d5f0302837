import type { Logger } from 'pino';

export interface ShutdownOptions {
  logger: Logger;
  /** The grace given to requests in flight (`SHUTDOWN_TIMEOUT_SECONDS`). */
  graceMs: number;
  /** Time allowed after the grace for the rest (engine, workers, pool) before exiting anyway. */
  afterGraceMs?: number;
  exit?: (code: number) => void;
}

/**
 * Stops the process cleanly on SIGTERM or SIGINT: `stop()` (which closes listeners gracefully,
 * then engines, workers and pools), then exit 0. A second signal exits at once (code 1), and so
 * does a stop that has not finished `afterGraceMs` (default 5 s) after the grace. Returns how to
 * stop the same way for a failure the process cannot run on with (logged at error, exit 1).
 */
export function stopOnSignals(
  stop: () => Promise<void>,
  options: ShutdownOptions,
): (failure: string) => void {
  const { logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const stopThenExit = (code: number) => {
    stopping = true;
    const force = setTimeout(
      () => {
        logger.error('could not stop in time: exiting now');
        exit(1);
      },
      options.graceMs + (options.afterGraceMs ?? 5_000),
    );
    force.unref();
    stop().then(
      () => {
        logger.info('stopped');
        exit(code);
      },
      (error: unknown) => {
        logger.error({ err: String(error) }, 'error while stopping');
        exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping: exiting now');
      exit(1);
      return;
    }
    logger.info(
      { signal, graceMs: options.graceMs },
      'stopping: no new connections; requests in flight may finish',
    );
    stopThenExit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return (failure) => {
    if (stopping) return;
    logger.error({ graceMs: options.graceMs }, `${failure}: stopping`);
    stopThenExit(1);
  };
}
