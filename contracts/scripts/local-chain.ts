#!/usr/bin/env node
// Runs the embedded development chain: a JSON-RPC node on 127.0.0.1:8545 that keeps its chain in
// the data directory, with the registries deployed once and their addresses in the deployments
// file. Ctrl-C stops it; the next start resumes the same chain.
import { join } from 'node:path';
import { REGISTRY_CONTRACTS, TrustPointRegistry__factory } from '@trustpoint/registry-abi';
import { startDevChain } from '../src/dev-chain';

async function main(): Promise<void> {
  const host = process.env.CHAIN_HOST ?? '127.0.0.1';
  const port = Number(process.env.CHAIN_PORT ?? '8545');
  // INIT_CWD: where the user ran `npm start`, rather than this package's folder.
  const dataDir =
    process.env.TRUSTPOINT_DATA_DIR ?? join(process.env.INIT_CWD ?? process.cwd(), '.trustpoint');
  const out = process.env.DEPLOYMENTS_FILE ?? join(dataDir, 'deployments.json');

  const chain = await startDevChain({
    dataDir: join(dataDir, 'chain'),
    host,
    port,
    deploymentsFile: out,
  });
  const stop = () => {
    void chain.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const { deployment } = chain;
  const names = REGISTRY_CONTRACTS[deployment.registries ?? 'slots'];

  const unknownCall = TrustPointRegistry__factory.createInterface().encodeFunctionData(
    'getTrustPoint',
    ['did:trustpoint:certid:unknown', 0],
  );
  console.log(`Trustpoint local chain ready on ${chain.url} (chain id ${deployment.chainId}, ${String(chain.restoredTransactions)} transactions restored)
  ${names.trustPoints.padEnd(24)} ${deployment.trustPointRegistry}
  ${names.evidences.padEnd(24)} ${deployment.evidenceRepository}
  ${'TrustPointStatusRegistry'.padEnd(24)} ${deployment.statusRegistry ?? '-'}
  ${'deployments file'.padEnd(24)} ${out}

Check it answers:
  curl -s ${chain.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"net_version","params":[],"id":1}'
Read a trustpoint that does not exist (reverts with data 0x16fd89cc, TrustPointNotFound):
  curl -s ${chain.url} -H 'Content-Type: application/json' -d '{"jsonrpc":"2.0","method":"eth_call","params":[{"to":"${deployment.trustPointRegistry}","data":"${unknownCall}"},"latest"],"id":1}'

Press Ctrl-C to stop.`);
}

main().catch((error: unknown) => {
  const shortMessage = (error as { shortMessage?: string }).shortMessage;
  console.error(shortMessage ?? (error instanceof Error ? error.message : String(error)));
  process.exit(1);
});
