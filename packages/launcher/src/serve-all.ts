// The whole service in one process: chain (unless a networks file leaves it out), database,
// anchoring engine, webhook worker and both APIs. `trustpoint start` and `npm start` run it.
import { REGISTRY_CONTRACTS, TrustPointRegistry__factory } from '@trustpoint/registry-abi';
import pino from 'pino';
import { launch, type RunningTrustpoint } from './launcher.js';
import { readLauncherConfig } from './launcher-config.js';
import { writeLocalToken } from './local-token.js';
import { stopOnSignals } from './graceful-shutdown.js';
import { removeServicePid, writeServicePid } from './service-pid-file.js';

/** The embedded chain's lines of the banner, or why it was not started. */
function chainLines(running: RunningTrustpoint): string {
  const chain = running.embeddedChain;
  if (chain === undefined) {
    return '  Local chain          not started (the networks file does not name it)';
  }
  const { deployment } = chain;
  const names = REGISTRY_CONTRACTS[deployment.registries ?? 'slots'];
  return `  Local chain          ${chain.url} (chain id ${deployment.chainId}, ${String(chain.restoredTransactions)} transactions restored)
  ${names.trustPoints.padEnd(20)} ${deployment.trustPointRegistry}
  ${names.evidences.padEnd(20)} ${deployment.evidenceRepository}`;
}

/** Raw JSON-RPC calls, for the embedded chain only: other RPC URLs may carry an API key. */
function chainExamples(running: RunningTrustpoint): string {
  const chain = running.embeddedChain;
  if (chain === undefined) return '';
  const unknownCall = TrustPointRegistry__factory.createInterface().encodeFunctionData(
    'getTrustPoint',
    ['did:trustpoint:certid:unknown', 0],
  );
  return `
Ask the chain which network it is:
  curl -s ${chain.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"net_version","params":[],"id":1}'
Read a trustpoint that does not exist (reverts with data 0x16fd89cc, TrustPointNotFound):
  curl -s ${chain.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"eth_call","params":[{"to":"${chain.deployment.trustPointRegistry}","data":"${unknownCall}"},"latest"],"id":1}'
`;
}

function banner(running: RunningTrustpoint, dataDir: string): string {
  const { certApiUrl, trackApiUrl } = running;
  const networks = running.networks.list();
  const own = networks.filter((network) => network.localUser === true);
  // The examples use a network of the local user's plan: the embedded chain by default.
  const networkId = own[0]?.networkId ?? '<networkId>';
  const plan =
    own.length === 0
      ? 'has no network yet (mark one with "localUser": true in the networks file)'
      : `may anchor on ${own.map((network) => network.networkId).join(', ')}`;
  return `
Trustpoint is running (data in ${dataDir}).

${chainLines(running)}
  Database             ${running.database.backend === 'pglite' ? `embedded PostgreSQL (PGlite) in ${dataDir}/pgdata` : 'PostgreSQL from DATABASE_URL'}
  Networks             ${networks.map((n) => `${n.networkId} (${n.name})`).join(', ')} (GET ${certApiUrl}/networks)

Access token for the local user, an administrator, who ${plan} (valid 30 days; a new one is printed at every start):
  export TOKEN=${running.token}
Add customers, plans, credits and keys (from this folder): npx trustpoint admin --help

Certificate API      ${certApiUrl}   (OpenAPI page: ${certApiUrl}/docs/)

Certify a piece of content (the answer comes once its trustpoint is mined):
  curl -s -X POST '${certApiUrl}/certificates?type=content&networkId=${networkId}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"Hello","description":"First certificate","content":{"hello":"world"}}'
Certify a file, hashed while it uploads (publish=true also serves it at ${certApiUrl}/files/<fileHash>):
  curl -s -X POST '${certApiUrl}/certificates?type=file&networkId=${networkId}&publish=true' -H "Authorization: Bearer $TOKEN" -F fileInput=@README.md -F 'body={"name":"Readme","description":"A file"}'
Read it back by its certID, and check its trustpoints on chain (with explorer links when the network has an explorer):
  curl -s '${certApiUrl}/certificates/certID/<certID>' -H "Authorization: Bearer $TOKEN"
  curl -s '${certApiUrl}/trustpoints/certID/<certID>' -H "Authorization: Bearer $TOKEN"

Asset-tracking API   ${trackApiUrl}   (OpenAPI page: ${trackApiUrl}/docs/)

Create an asset (its first evidence is anchored before the answer), then add an evidence to it:
  curl -s -X POST '${trackApiUrl}/assets' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"assetId":"pallet-1","data":{"id":"pallet-1","version":"1"},"networkId":${networkId}}'
  curl -s -X POST '${trackApiUrl}/assets/<trackID>/transactions' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"metadata":{"step":"shipped"}}'
Verify an evidence on chain through the service, by its hash:
  curl -s '${trackApiUrl}/evidences/<hash>' -H "Authorization: Bearer $TOKEN"
${chainExamples(running)}
Press Ctrl-C to stop.`;
}

/** What a started instance tells the command that started it. */
export interface ServedInstance {
  /** The public origin its trust document names. */
  publicUrl: string;
  /** Its networks' nodes on this machine's loopback (the embedded chain): safe to remember. */
  localNodes: Record<string, string[]>;
}

const isLoopback = (url: string): boolean => {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * Starts Trustpoint (the embedded defaults, or what the environment configures), prints the
 * banner, writes the local user's token to `<dataDir>/local-token` for the `trustpoint admin`
 * commands, and stops gracefully on SIGINT or SIGTERM (a second one, or the shutdown deadline,
 * exits at once). Rejects when it cannot start.
 */
export async function serveAll(): Promise<ServedInstance> {
  // Every setting is checked before anything starts, the log level included.
  const config = readLauncherConfig();
  const logger = pino({ name: 'trustpoint', level: config.logLevel });
  const running = await launch('all', config, logger);
  await writeLocalToken(config.dataDir, running.token);

  // The embedded database belongs to this process: `trustpoint migrate` must not open it too.
  const embedded = running.database.backend === 'pglite';
  if (embedded) await writeServicePid(config.dataDir);
  let stopped = false;
  const stopForFailure = stopOnSignals(
    async () => {
      stopped = true;
      await running.stop();
      if (embedded) await removeServicePid(config.dataDir);
    },
    { logger, graceMs: config.shutdownTimeoutMs },
  );
  // The embedded chain's node died (killed, out of memory): nothing can be anchored until it is
  // back, and this process would answer as if healthy. It stops (exit 1) for whoever runs it to
  // start it again, which replays the chain; acknowledged records wait in the database's queue.
  // Ctrl-C in a terminal signals the node too, maybe before this process hears its own signal:
  // an ending is a failure only if no stop began within a second of it.
  void running.embeddedChain?.ended.then(({ code, signal }) => {
    setTimeout(() => {
      if (stopped) return;
      stopForFailure(
        `the embedded chain's node ended (${signal ?? `exit code ${String(code)}`}); records queued stay queued and are anchored once Trustpoint is started again`,
      );
    }, 1_000).unref();
  });
  // Only now that Ctrl-C stops it cleanly: whoever reads "is running" may signal at once (with the
  // banner printed before, a SIGINT in the moment the pid file took ended the process by default).
  console.log(banner(running, config.dataDir));
  const localNodes: Record<string, string[]> = {};
  for (const network of running.networks.list()) {
    if (isLoopback(network.rpcUrl)) localNodes[network.networkId] = [network.rpcUrl];
  }
  return { publicUrl: config.publicUrl, localNodes };
}
