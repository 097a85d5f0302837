#!/usr/bin/env node
// Runs the anchoring engine on its own, without an API: for deployments that scale anchoring
// separately, and for the crash tests that kill it mid-batch. Configuration from the environment:
//   DATABASE_URL                 PostgreSQL
//   TRUSTPOINT_PGLITE_DIR        or, without DATABASE_URL, an embedded database directory that no
//                                other process has open (the embedded database belongs to one process)
//   TRUSTPOINT_DB_SCHEMA         schema to work in (optional)
//   TRUSTPOINT_NETWORKS_FILE     networks file (optional: the embedded local chain otherwise)
//   TRUSTPOINT_DEPLOYMENTS_FILE  deployments file (default .trustpoint/deployments.json)
import { join } from 'node:path';
import { createDatabase } from '@trustpoint/db';
import pino from 'pino';
import { AnchorEngine } from './anchoring/anchor-engine.js';
import { loadNetworks } from './networks/load-networks.js';
import { NetworkRegistry } from './networks/network-registry.js';

async function main(): Promise<void> {
  const logger = pino({ name: 'trustpoint-anchorer' });
  const url = process.env.DATABASE_URL;
  const pgliteDir = process.env.TRUSTPOINT_PGLITE_DIR;
  if (!url && !pgliteDir) {
    throw new Error(
      'DATABASE_URL (or TRUSTPOINT_PGLITE_DIR) is required to run the anchorer on its own',
    );
  }
  const networks = new NetworkRegistry(
    await loadNetworks({
      networksFile: process.env.TRUSTPOINT_NETWORKS_FILE,
      deploymentsFile:
        process.env.TRUSTPOINT_DEPLOYMENTS_FILE ??
        join(process.cwd(), '.trustpoint', 'deployments.json'),
    }),
  );
  await networks.verifyChainIds({
    onUnreachable: (network, error) => {
      logger.warn(
        { networkId: network.networkId, err: error.message },
        'node unreachable at start; will retry',
      );
    },
  });
  const database = await createDatabase(
    url
      ? { url, schema: process.env.TRUSTPOINT_DB_SCHEMA }
      : { dataDir: pgliteDir, schema: process.env.TRUSTPOINT_DB_SCHEMA },
  );
  const engine = new AnchorEngine(database.knex, networks, { logger });
  engine.start();
  logger.info({ networks: networks.list().map((n) => n.networkId) }, 'anchorer started');

  const stop = () => {
    void engine
      .stop()
      .then(() => database.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
