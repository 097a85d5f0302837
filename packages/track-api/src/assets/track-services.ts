import type { AnchorEngine, NetworkRegistry } from '@trustpoint/chain';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/** What the asset-tracking use cases work with; built once at start-up and shared by requests. */
export interface TrackServices {
  knex: Knex;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  /** The `<ns>` of trackIDs this deployment mints. */
  namespace: string;
  /** Milliseconds since the epoch; a parameter so tests can pin time. */
  now: () => number;
  logger: Logger;
  /**
   * How far (seconds) an asset's evidence timestamps may run ahead of the clock under a burst
   * (each evidence of an asset takes the next free second); beyond it, 429 with Retry-After.
   * Default `DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS` (60).
   */
  maxEvidenceAheadSeconds?: number;
}
