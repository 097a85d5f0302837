#!/usr/bin/env node
// `npm start`: Trustpoint on its embedded defaults, no configuration needed. Ctrl-C stops it.
import { TrustPointRegistry__factory } from '@trustpoint/contracts';
import pino from 'pino';
import { launch, type RunningTrustpoint } from './launcher.js';
import { readLauncherConfig } from './launcher-config.js';

function banner(running: RunningTrustpoint, dataDir: string): string {
  const { deployment, chainUrl, certApiUrl, trackApiUrl } = running;
  const unknownCall = TrustPointRegistry__factory.createInterface().encodeFunctionData(
    'getTrustPoint',
    ['did:trustpoint:certid:unknown', 0],
  );
  return `
Trustpoint is running on its embedded defaults (data in ${dataDir}).

  Local chain          ${chainUrl} (chain id ${deployment.chainId}, ${String(running.restoredTransactions)} transactions restored)
  TrustPointRegistry   ${deployment.trustPointRegistry}
  EvidenceRepository   ${deployment.evidenceRepository}
  Database             ${running.database.backend === 'pglite' ? `embedded PostgreSQL (PGlite) in ${dataDir}/pgdata` : 'PostgreSQL from DATABASE_URL'}
  Networks             ${running.networks
    .list()
    .map((n) => `${n.networkId} (${n.name})`)
    .join(', ')}

Access token for the local user (valid 30 days; a new one is printed at every start):
  export TOKEN=${running.token}

Certificate API      ${certApiUrl}   (OpenAPI page: ${certApiUrl}/docs/)

Certify a piece of content (the answer comes once its trustpoint is mined):
  curl -s -X POST '${certApiUrl}/certificates?type=content&networkId=${deployment.chainId}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"name":"Hello","description":"First certificate","content":{"hello":"world"}}'
Certify a file, hashed while it uploads (publish=true also serves it at ${certApiUrl}/files/<fileHash>):
  curl -s -X POST '${certApiUrl}/certificates?type=file&networkId=${deployment.chainId}&publish=true' -H "Authorization: Bearer $TOKEN" -F fileInput=@README.md -F 'body={"name":"Readme","description":"A file"}'
Read it back by its certID, and check its trustpoints on chain:
  curl -s '${certApiUrl}/certificates/certID/<certID>' -H "Authorization: Bearer $TOKEN"
  curl -s '${certApiUrl}/trustpoints/certID/<certID>' -H "Authorization: Bearer $TOKEN"

Asset-tracking API   ${trackApiUrl}   (OpenAPI page: ${trackApiUrl}/docs/)

Create an asset (its first evidence is anchored before the answer), then add an evidence to it:
  curl -s -X POST '${trackApiUrl}/assets' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"assetId":"pallet-1","data":{"id":"pallet-1","version":"1"},"networkId":${deployment.chainId}}'
  curl -s -X POST '${trackApiUrl}/assets/<trackID>/transactions' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"metadata":{"step":"shipped"}}'
Verify an evidence on chain through the service, by its hash:
  curl -s '${trackApiUrl}/evidences/<hash>' -H "Authorization: Bearer $TOKEN"

Ask the chain which network it is:
  curl -s ${chainUrl} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"net_version","params":[],"id":1}'
Read a trustpoint that does not exist (reverts with data 0x16fd89cc, TrustPointNotFound):
  curl -s ${chainUrl} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"eth_call","params":[{"to":"${deployment.trustPointRegistry}","data":"${unknownCall}"},"latest"],"id":1}'

Press Ctrl-C to stop.`;
}

async function main(): Promise<void> {
  const logger = pino({ name: 'trustpoint', level: process.env.LOG_LEVEL ?? 'info' });
  const config = readLauncherConfig();
  const running = await launch(config, logger);
  console.log(banner(running, config.dataDir));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: String(error) }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => {
    stop('SIGINT');
  });
  process.once('SIGTERM', () => {
    stop('SIGTERM');
  });
}

main().catch((error: unknown) => {
  console.error(
    `Trustpoint could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
