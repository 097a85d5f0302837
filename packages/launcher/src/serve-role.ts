// `trustpoint serve cert|track|anchor`: one role of the service in this process (see ROLE_TABLE).
import pino from 'pino';
import { stopOnSignals } from './graceful-shutdown.js';
import { readLauncherConfig } from './launcher-config.js';
import { launch, type ServerRole } from './launcher.js';

/**
 * Starts one role from the environment's configuration, prints one line once it is ready (the
 * API's URL, or the networks anchored on) and stops gracefully on SIGTERM or SIGINT. Rejects when
 * it cannot start.
 */
export async function serveRole(role: ServerRole): Promise<void> {
  // Every setting is checked before anything starts, the log level included.
  const config = readLauncherConfig();
  const logger = pino({ name: `trustpoint-${role}`, level: config.logLevel });
  const running = await launch(role, config, logger);
  const networks = running.networks
    .list()
    .map((network) => network.networkId)
    .join(', ');
  // Before the line saying it runs: whoever reads it may signal at once.
  stopOnSignals(() => running.stop(), { logger, graceMs: config.shutdownTimeoutMs });
  console.log(
    running.url === undefined
      ? `Trustpoint anchoring is running (networks ${networks}, pid ${String(process.pid)})`
      : `Trustpoint ${role === 'cert' ? 'certificate' : 'asset-tracking'} API is running at ${running.url} (pid ${String(process.pid)})`,
  );
}
