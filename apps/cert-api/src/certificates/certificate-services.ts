import type { AnchorEngine, NetworkRegistry } from '@trustpoint/chain';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { PinCipher } from './pin-cipher.js';

/** What the certificate use cases work with; built once at start-up and shared by requests. */
export interface CertificateServices {
  knex: Knex;
  engine: AnchorEngine;
  networks: NetworkRegistry;
  pins: PinCipher;
  /** The `<ns>` of certIDs this deployment mints. */
  namespace: string;
  /** Milliseconds since the epoch; a parameter so tests can pin time. */
  now: () => number;
  logger: Logger;
}
