import { readNetworkHealth, recordNetworkHealth } from '@trustpoint/db';
import type { Knex } from 'knex';
import { silentLogger, type AnchorLogger } from './anchor-logger.js';
import type { AnchorEngine } from './anchor-engine.js';
import { unknownHealth, type NetworkHealth } from './network-health.js';

/** Writes a look at a network's registrar into `network_health`; `unknown` (no look) is not news. */
async function shareLook(knex: Knex, health: NetworkHealth): Promise<void> {
  if (health.state === 'unknown') return;
  await recordNetworkHealth(knex, { ...health, state: health.state });
}

export interface SharedHealthOptions {
  /** Least time between two writes of an unchanged state, per network. Default 5 s. */
  writeEveryMs?: number;
  logger?: AnchorLogger;
}

/**
 * Shares an anchoring process's registrar looks with the API processes through `network_health`:
 * a change of state is written at once, an unchanged one at most every `writeEveryMs` (anchorers
 * look before every batch, which would otherwise be a write per batch). Observe the engine with
 * it: `engine.observe({ health: shareNetworkHealth(knex) })`.
 */
export function shareNetworkHealth(
  knex: Knex,
  options: SharedHealthOptions = {},
): (health: NetworkHealth) => void {
  const writeEveryMs = options.writeEveryMs ?? 5_000;
  const logger = options.logger ?? silentLogger;
  const written = new Map<string, { state: string; at: number }>();
  return (health) => {
    const last = written.get(health.networkId);
    const now = Date.now();
    if (last !== undefined && last.state === health.state && now - last.at < writeEveryMs) return;
    written.set(health.networkId, { state: health.state, at: now });
    shareLook(knex, health).catch((error: unknown) => {
      // Written again at the next look.
      written.delete(health.networkId);
      logger.warn({ err: String(error) }, 'could not record network health; retrying');
    });
  };
}

export interface HealthWatchOptions {
  /** How often the table is read. Default 1 s. */
  intervalMs?: number;
  /**
   * A record older than this is no news (no anchoring process looked lately): the network's health
   * is then `unknown`, which counts as ready, as in a process that anchors and has not looked yet.
   * Default 60 s (anchorers look every 10 s while idle).
   */
  staleAfterMs?: number;
  logger?: AnchorLogger;
}

export interface HealthWatch {
  stop(): Promise<void>;
}

/**
 * For processes that enqueue and wait but do not anchor (`anchoring: false`, the API roles): reads
 * what the anchoring processes recorded in `network_health` and tells the engine
 * (`reportHealth`), so that a network whose registrar cannot pay answers 503 at once here too.
 */
export function watchNetworkHealth(
  knex: Knex,
  engine: AnchorEngine,
  networkIds: readonly string[],
  options: HealthWatchOptions = {},
): HealthWatch {
  const intervalMs = options.intervalMs ?? 1_000;
  const staleAfterMs = options.staleAfterMs ?? 60_000;
  const logger = options.logger ?? silentLogger;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const look = async () => {
    try {
      const recorded = new Map(
        (await readNetworkHealth(knex)).map((health) => [health.networkId, health]),
      );
      const now = Date.now();
      for (const networkId of networkIds) {
        const health = recorded.get(networkId);
        const fresh =
          health?.checkedAt !== undefined && now - health.checkedAt.getTime() <= staleAfterMs;
        engine.reportHealth(fresh ? health : unknownHealth(networkId));
      }
    } catch (error) {
      logger.warn({ err: String(error) }, 'could not read network health; retrying');
    }
  };
  const loop = () => {
    if (stopped) return;
    running = look().finally(() => {
      if (!stopped) timer = setTimeout(loop, intervalMs);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
