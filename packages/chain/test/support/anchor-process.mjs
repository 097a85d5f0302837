// The anchoring engine alone in a process of its own, for the crash tests that kill it mid-batch
// (`kill -9`). Built code only: run after `build`. A deployment runs the same engine as
// `trustpoint serve anchor`. Configuration from the environment:
//   DATABASE_URL                 PostgreSQL
//   TRUSTPOINT_PGLITE_DIR        or, without DATABASE_URL, an embedded database directory that no
//                                other process has open (the embedded database belongs to one process)
//   TRUSTPOINT_DB_SCHEMA         schema to work in (optional)
//   TRUSTPOINT_NETWORKS_FILE     networks file (optional: the embedded local chain otherwise)
//   TRUSTPOINT_DEPLOYMENTS_FILE  deployments file (default .trustpoint/deployments.json)
//   TRUSTPOINT_CHAIN_DIR         the embedded chain's data directory, whose write key the engine
//                                sends (optional: a chain that needs none otherwise)
import { join } from 'node:path';
import { createDatabase } from '@trustpoint/db';
import { chainWriteHeaders, readChainWriteKey } from '@trustpoint/registry-abi';
import pino from 'pino';
import chain from '../../dist/index.js';

const { AnchorEngine, loadNetworks, NetworkRegistry } = chain;

async function main() {
  const logger = pino({ name: 'trustpoint-anchor-process' });
  const url = process.env.DATABASE_URL;
  const pgliteDir = process.env.TRUSTPOINT_PGLITE_DIR;
  if (!url && !pgliteDir) {
    throw new Error('DATABASE_URL (or TRUSTPOINT_PGLITE_DIR) is required');
  }
  const chainDir = process.env.TRUSTPOINT_CHAIN_DIR;
  const writeKey = chainDir === undefined ? undefined : await readChainWriteKey(chainDir);
  const networks = new NetworkRegistry(
    await loadNetworks({
      rpcHeadersFor: () => (writeKey === undefined ? undefined : chainWriteHeaders(writeKey)),
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
