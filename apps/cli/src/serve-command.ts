import { Argument, type Command } from 'commander';
import { SERVER_ROLES, type ServerRole } from '@trustpoint/launcher/launcher';
import { serveRole } from '@trustpoint/launcher/serve-role';
import { serveAll } from '@trustpoint/launcher/serve-all';
import { startOrRefuse } from './start-or-refuse.js';

const ROLE_HELP = `
Roles:
  all     everything in one process (what \`trustpoint start\` and \`npm start\` run): the local
          chain unless a networks file leaves it out, the embedded database unless DATABASE_URL,
          the anchoring engine, the webhook worker and both APIs
  cert    the certificate API alone (CERT_API_PORT); enqueues records and waits, never anchors
  track   the asset-tracking API alone (TRACK_API_PORT); the same
  anchor  the anchoring engine and the webhook worker; health and metrics on HEALTH_PORT (9464)

Every role reads the same configuration (see the README). cert, track and anchor need
DATABASE_URL (any number of each share one PostgreSQL) and TRUSTPOINT_NETWORKS_FILE or a chain
already running at CHAIN_HOST:CHAIN_PORT with its registries in the data directory. They migrate
the database at start unless MIGRATE_AT_START=false (then run \`trustpoint migrate\` first).
SIGTERM or Ctrl-C stops a role gracefully: no new connections, requests in flight answered within
SHUTDOWN_TIMEOUT_SECONDS (10), then exit 0; a second signal exits at once.`;

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run one role of the service in this process (cert, track, anchor) or all of them')
    .addArgument(new Argument('<role>', 'what this process runs').choices(['all', ...SERVER_ROLES]))
    .addHelpText('after', ROLE_HELP)
    .action(async (role: 'all' | ServerRole) => {
      await startOrRefuse<unknown>(() => (role === 'all' ? serveAll() : serveRole(role)));
    });
}
