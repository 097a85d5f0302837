// The anchoring thread started by `startAnchoringThread`: an anchoring engine with its own
// database pool, telling the starting thread of every record it settles.
import { parentPort, workerData } from 'node:worker_threads';
import { createDatabase } from '@trustpoint/db';
import pino from 'pino';
import { NetworkRegistry } from '../networks/network-registry.js';
import { AnchorEngine } from './anchor-engine.js';
import type { AnchoringThreadData, AnchoringThreadMessage } from './anchoring-thread.js';
import { shareNetworkHealth } from './shared-network-health.js';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('anchoring-thread-worker runs as a worker thread');
  const data = workerData as AnchoringThreadData;
  const tell = (message: AnchoringThreadMessage) => {
    port.postMessage(message);
  };
  const logger = pino({ name: 'trustpoint-anchoring', level: data.logLevel });
  const database = await createDatabase({
    url: data.databaseUrl,
    poolMax: data.poolMax,
    migrate: false,
    ...(data.schema === undefined ? {} : { schema: data.schema }),
  });
  // API processes beside this one (`trustpoint serve cert`) read it from the table.
  const shareHealth = shareNetworkHealth(database.knex, { logger });
  const engine = new AnchorEngine(database.knex, new NetworkRegistry(data.networks), {
    logger,
    ...(data.timing === undefined ? {} : { timing: data.timing }),
    onAnchored: (receipts) => {
      tell({ kind: 'anchored', receipts });
    },
    onFailed: (records) => {
      tell({ kind: 'failed', records });
    },
    onHealth: (health) => {
      tell({ kind: 'health', health });
      shareHealth(health);
    },
  });
  engine.start();
  port.on('message', (message: unknown) => {
    if (message === 'wake') engine.wake();
    if (message !== 'stop') return;
    void engine
      .stop()
      .then(() => database.close())
      .then(() => {
        tell({ kind: 'stopped' });
      });
  });
  tell({ kind: 'ready' });
}

void main();
