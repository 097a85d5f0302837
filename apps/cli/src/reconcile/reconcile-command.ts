import {
  allAgree,
  reconcileNetwork,
  type DatabaseRecord,
  type NetworkReconciliation,
} from '@trustpoint/chain';
import { ANY_NETWORK, isLoopbackOrigin, normalizeOrigin } from '@trustpoint/verifier';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { AdminClient } from '../admin/admin-client.js';
import { resolveConnection, type ConnectionOptions } from '../admin/connection.js';
import { nonNegativeInteger } from '../admin/options.js';
import { CliError, usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { record, table, type Io } from '../output.js';
import { pinnedNodes, readTrustFile, trustFilePath } from '../trust/trust-store.js';
import { fetchJson } from '../verify/record-source.js';
import {
  collect,
  LOCAL_CHAIN_ID,
  localChainUrl,
  readNetworksFile,
  rpcUrlsOf,
  type TrustedNetwork,
} from '../verify/rpc-option.js';

interface ReconcileOptions extends ConnectionOptions {
  network?: string;
  since?: string;
  wait?: number;
  rpc?: string[];
  networks?: string;
  contract?: string[];
  json: boolean;
}

interface ServiceNetwork {
  networkId: number | string;
  trustPointRegistry: string;
  evidenceRepository: string;
}

/** Records per page of `GET /admin/v1/records`: its maximum. */
const PAGE = 10_000;

/** Every acknowledged record of a network, page after page. */
async function loadRecords(
  client: AdminClient,
  network: string,
  since: Date | undefined,
): Promise<DatabaseRecord[]> {
  const records: DatabaseRecord[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await client.answer(
      client.api.GET('/records', {
        params: { query: { network, limit: PAGE, since: since?.toISOString(), after } },
      }),
    );
    records.push(...page.records);
    if (page.next === null) return records;
    after = page.next;
  }
}

/** `--contract <networkId>=<0x address>`, repeatable: registries to read besides the service's. */
function extraRegistries(values: readonly string[]): Map<string, string[]> {
  const registries = new Map<string, string[]>();
  for (const value of values) {
    const match = /^(\d+)=(0x[0-9a-fA-F]{40})$/.exec(value);
    if (!match) throw usageError(`--contract takes <networkId>=<0x address>, not ${value}`);
    const [, network, address] = match as unknown as [string, string, string];
    registries.set(network, [...(registries.get(network) ?? []), address]);
  }
  return registries;
}

/**
 * The networks file to read nodes from: `--networks`, else the one the service itself reads
 * (`TRUSTPOINT_NETWORKS_FILE`, relative to where it was started, as the service resolves it).
 */
async function networksFileOf(
  given: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TrustedNetwork[]> {
  if (given !== undefined) return readNetworksFile(given);
  const fromEnv = env.TRUSTPOINT_NETWORKS_FILE;
  if (fromEnv === undefined || fromEnv === '') return [];
  return readNetworksFile(
    resolve(env.INIT_CWD ?? process.cwd(), fromEnv),
    `TRUSTPOINT_NETWORKS_FILE ${fromEnv}`,
  );
}

function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const since = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(since.getTime())) {
    throw usageError(`--since takes an ISO 8601 time (e.g. 2026-11-23T00:00:00Z), not ${value}`);
  }
  return since;
}

function reconciliationText(result: NetworkReconciliation): string {
  const { counts } = result;
  const verdict = allAgree(result) ? 'AGREE' : 'DISAGREE';
  const summary = record([
    ['network', result.network],
    ['since', result.since ?? 'the beginning'],
    ['verdict', verdict],
    ['checked', counts.checked],
    ['agree', counts.agree],
    ['pending (not compared)', counts.pending],
    ['missing on chain', counts.missing],
    ['mismatched', counts.mismatched],
    ['doubled', counts.doubled],
    ['orphaned (on chain, no row)', counts.orphaned],
  ]);
  if (result.problems.length === 0) return summary;
  return `${summary}\n${table(result.problems, [
    { title: 'problem', value: (problem) => problem.kind },
    { title: 'record', value: (problem) => problem.recordKind },
    { title: 'key', value: (problem) => problem.recordKey },
    { title: 'database hash', value: (problem) => problem.expectedHash },
    { title: 'chain hash', value: (problem) => problem.chainHash },
    { title: 'contract', value: (problem) => problem.contract },
    { title: 'transaction', value: (problem) => problem.transactionHash },
    { title: 'detail', value: (problem) => problem.detail },
  ])}`;
}

/**
 * The nodes pinned in the trust file with this service's origin (`trustpoint start` pins its own
 * chain's node, on whatever port it runs), as backups after those given: the chain of this
 * instance, not of another one whose chain has the same id.
 */
async function pinnedNodesOf(
  serviceUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<{ networkId: string; url: string }[]> {
  const origin = normalizeOrigin(serviceUrl);
  if (origin === undefined) return [];
  const file = await readTrustFile(trustFilePath(env));
  return pinnedNodes(file.origins.filter((pinned) => pinned.document.origin === origin));
}

/**
 * A node as an error names it: in full on this machine, where it is the operator's own; elsewhere
 * not at all, as its URL may hold a provider's key (in its path, query or host name).
 */
function named(url: string): string {
  return isLoopbackOrigin(url)
    ? url
    : 'the node given for it (its URL may hold a key: not printed)';
}

/**
 * `trustpoint reconcile`: whether every record the service acknowledged is on chain exactly once
 * with its hash, and nothing else is. The records come from the running service's admin API (the
 * data directory's database is never opened here), the chain from the nodes given.
 */
export function reconcileCommand(program: Command, io: Io): void {
  program
    .command('reconcile')
    .description(
      'compare every acknowledged certificate trustpoint and asset evidence with the chain: missing, mismatched, doubled, orphaned and pending records',
    )
    .option('--network <id>', 'only this network (default: every network the service has)')
    .option(
      '--since <time>',
      'only records created, and chain records mined, at or after this ISO 8601 time',
    )
    .option(
      '--wait <seconds>',
      'wait up to this long for pending (queued or batched) records to be anchored first',
      nonNegativeInteger,
    )
    .option(
      '--rpc <url>',
      "a node to read, URL or <networkId>=URL, repeatable (env TRUSTPOINT_RPC); the nodes pinned with this service's origin come after them (trustpoint start pins its own chain's, on whatever port it runs), and 31337 falls back to the local chain of the roles, http://$CHAIN_HOST:$CHAIN_PORT (127.0.0.1:8545)",
      collect,
    )
    .option(
      '--networks <file>',
      "a networks file in the service's format; its rpcUrl(s) are read after those of --rpc (default: the service's own, TRUSTPOINT_NETWORKS_FILE)",
    )
    .option(
      '--contract <networkId=address>',
      "another registry to read, e.g. one the network used before (the service's current ones and those its records name are always read), repeatable",
      collect,
    )
    .option(
      '--url <url>',
      "the certificate API's origin (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
    )
    .option(
      '--token <jwt>',
      "an admin's access token (env TRUSTPOINT_TOKEN; default the local admin's, left by a service started here)",
    )
    .option('--data-dir <dir>', 'where a local service keeps its data (env TRUSTPOINT_DATA_DIR)')
    .option('--json', 'print the result as JSON, for scripts', false)
    .addHelpText(
      'after',
      `
Exits 0 only when every record compared agrees and no chain record lacks a row; 11 when they
disagree (pending records are counted, not a disagreement). --json prints, per network,
{ network, since, counts: { checked, agree, pending, missing, mismatched, doubled, orphaned },
  problems: [{ kind, network, recordKind, recordKey, expectedHash, chainHash, contract,
  transactionHash, detail }] }
as one object with --network, else an array of them.

Examples:
  trustpoint reconcile
  trustpoint reconcile --network 11155111 --rpc 11155111=https://... --since 2026-11-01T00:00:00Z --json`,
    )
    .action(async (options: ReconcileOptions) => {
      const since = parseSince(options.since);
      const registries = extraRegistries(options.contract ?? []);
      const fromFile = await networksFileOf(options.networks, io.env);
      const client = new AdminClient(await resolveConnection(options, io.env));
      // The local chain (localChainUrl) only for a network the service has, asked below.
      const rpc = rpcUrlsOf(
        options.rpc ?? [],
        io.env,
        [
          ...fromFile.flatMap(({ networkId, urls }) => urls.map((url) => ({ networkId, url }))),
          ...(await pinnedNodesOf(client.connection.url, io.env)),
        ],
        false,
      );
      const listed = (await fetchJson(
        new URL(`${client.connection.url.replace(/\/+$/, '')}/cert/v2/networks`),
        client.connection.timeoutMs,
      )) as { data?: { networks?: ServiceNetwork[] } };
      const configured = listed.data?.networks ?? [];
      const networks =
        options.network === undefined
          ? configured
          : configured.filter((network) => String(network.networkId) === options.network);
      if (options.network !== undefined && networks.length === 0) {
        throw usageError(
          `network ${options.network} is not configured on the service (configured: ${configured.map((network) => String(network.networkId)).join(', ') || 'none'})`,
        );
      }

      const results: NetworkReconciliation[] = [];
      for (const network of networks) {
        const id = String(network.networkId);
        const given = rpc[id]?.[0] ?? rpc[ANY_NETWORK]?.[0];
        const rpcUrl = given ?? (id === LOCAL_CHAIN_ID ? localChainUrl(io.env) : undefined);
        if (rpcUrl === undefined) {
          throw usageError(`no node for network ${id}: pass --rpc ${id}=<url> or --networks`);
        }
        const result = await reconcileNetwork({
          network: id,
          rpcUrl,
          registries: [
            network.trustPointRegistry,
            network.evidenceRepository,
            ...(registries.get(id) ?? []),
          ],
          loadRecords: (from) => loadRecords(client, id, from),
          ...(since === undefined ? {} : { since }),
          waitMs: (options.wait ?? 0) * 1_000,
        }).catch((error: unknown) => {
          if (error instanceof CliError) throw error;
          const node =
            given === undefined
              ? `${rpcUrl} (the local chain, CHAIN_HOST:CHAIN_PORT)`
              : named(given);
          throw new CliError(
            `cannot read network ${id}'s chain from ${node}: ${error instanceof Error ? error.message : String(error)}; pass --rpc ${id}=<url> to read another node`,
            EXIT.unchecked,
          );
        });
        results.push(result);
      }

      io.stdout(
        `${
          options.json
            ? JSON.stringify(options.network === undefined ? results : results[0], null, 2)
            : results.map(reconciliationText).join('\n\n')
        }\n`,
      );
      const disagreeing = results.filter((result) => !allAgree(result));
      if (disagreeing.length > 0) {
        throw new CliError(
          `the database and the chain disagree on network(s) ${disagreeing.map((result) => result.network).join(', ')}`,
          EXIT.disagreement,
        );
      }
    });
}
