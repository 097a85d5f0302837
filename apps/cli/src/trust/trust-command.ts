import { compareTrustDocuments, isLoopbackOrigin, type TrustDocument } from '@trustpoint/verifier';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { table, type Io } from '../output.js';
import {
  fetchLocalNodes,
  fetchTrustDocument,
  originOf,
  readTrustFile,
  trustFilePath,
  writeTrustFile,
} from './trust-store.js';

const describeDocument = (document: TrustDocument): string =>
  [
    `${document.name} (${document.origin})`,
    table(
      document.networks.flatMap((network) =>
        network.registries.map((registry) => ({ network, registry })),
      ),
      [
        { title: 'Network', value: (row) => row.network.networkId },
        { title: 'Chain', value: (row) => row.network.chainId },
        { title: 'Genesis', value: (row) => row.network.genesisHash },
        { title: 'Kind', value: (row) => row.registry.kind },
        { title: 'Address', value: (row) => row.registry.address },
        {
          title: 'Blocks',
          value: (row) =>
            `${String(row.registry.fromBlock ?? 0)}-${row.registry.toBlock === undefined ? '' : String(row.registry.toBlock)}`,
        },
      ],
    ),
  ].join('\n');

/**
 * `trustpoint trust add|list|remove`: the service origins whose published registries this
 * machine's verifiers trust, pinned as `known_hosts` pins host keys.
 */
export function trustCommand(program: Command, io: Io): void {
  const trust = program
    .command('trust')
    .description(
      'the service origins whose registries `trustpoint verify` trusts (pinned in a trust file; env TRUSTPOINT_TRUST_FILE)',
    );

  trust
    .command('add')
    .description(
      'trust a service: fetch <origin>/.well-known/trustpoint.json and pin its networks and registries. A later change is reported, never taken silently',
    )
    .argument('<origin>', 'the service origin, e.g. https://certs.example.org')
    .option('--replace', 'replace a pinned document that changed (after you checked why)', false)
    .action(async (given: string, options: { replace: boolean }) => {
      const origin = originOf(given);
      const path = trustFilePath(io.env);
      const file = await readTrustFile(path);
      const document = await fetchTrustDocument(origin);
      const pinned = file.origins.find((entry) => entry.document.origin === origin);
      if (pinned !== undefined) {
        const changes = compareTrustDocuments(pinned.document, document);
        const serious = changes.filter((change) => change.kind !== 'registryAdded');
        if (serious.length > 0 && !options.replace) {
          io.stderr(
            `WARNING: the trust document of ${origin} CHANGED since you pinned it (${pinned.pinnedAt}):\n${serious.map((change) => `  - ${change.detail}`).join('\n')}\nIt may have moved to other contracts, or somebody may be impersonating it. If you know why, run again with --replace.\n`,
          );
          throw new CliError(`the trust document of ${origin} changed`, EXIT.conflict);
        }
      }
      // A loopback origin is this machine's own instance (a `trustpoint serve` or `start` here):
      // its development registries count, as in the web verifier, and its nodes are pinned.
      const local = isLoopbackOrigin(origin);
      const nodes = local ? await fetchLocalNodes(origin) : {};
      const entry = {
        ...(pinned ?? {}),
        document,
        ...(local ? { local: true } : {}),
        ...(Object.keys(nodes).length === 0 ? {} : { rpc: nodes }),
        pinnedAt: new Date().toISOString(),
      };
      await writeTrustFile(path, {
        origins: [...file.origins.filter((item) => item.document.origin !== origin), entry],
      });
      const here = local
        ? `\nThis machine's own instance (a loopback origin): its development registries count here${
            Object.keys(nodes).length === 0
              ? ''
              : `, asked on ${Object.entries(nodes)
                  .map(([networkId, urls]) => `${networkId}=${urls.join(',')}`)
                  .join(' ')}`
          }`
        : '';
      io.stdout(`Trusted ${describeDocument(document)}${here}\nPinned in ${path}\n`);
    });

  trust
    .command('list')
    .description('the origins trusted, with what each pinned')
    .option('--json', 'print the trust file as JSON', false)
    .action(async (options: { json: boolean }) => {
      const path = trustFilePath(io.env);
      const file = await readTrustFile(path);
      if (options.json) {
        io.stdout(`${JSON.stringify(file, null, 2)}\n`);
        return;
      }
      io.stdout(
        file.origins.length === 0
          ? `No origin trusted yet (${path}). Trust one with: trustpoint trust add https://certs.example.org\n`
          : `${file.origins
              .map(
                (entry) =>
                  `${describeDocument(entry.document)}\nPinned ${entry.pinnedAt}${entry.local === true ? " by this machine's trustpoint start (its development registries count here only)" : ''}`,
              )
              .join('\n\n')}\n`,
      );
    });

  trust
    .command('remove')
    .description('stop trusting an origin')
    .argument('<origin>', 'the service origin')
    .action(async (given: string) => {
      const origin = originOf(given);
      const path = trustFilePath(io.env);
      const file = await readTrustFile(path);
      const kept = file.origins.filter((entry) => entry.document.origin !== origin);
      if (kept.length === file.origins.length) {
        throw new CliError(`${origin} is not trusted here (${path})`, EXIT.notFound);
      }
      await writeTrustFile(path, { origins: kept });
      io.stdout(`No longer trusted: ${origin}\n`);
    });
}
