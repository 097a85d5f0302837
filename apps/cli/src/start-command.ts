import type { Command } from 'commander';
import { serveAll } from '@trustpoint/launcher/serve-all';
import { startOrRefuse } from './start-or-refuse.js';
import {
  fetchTrustDocument,
  readTrustFile,
  trustFilePath,
  writeTrustFile,
} from './trust/trust-store.js';

/**
 * This machine's verifiers trust the instance it just started: its trust document is pinned as
 * local (its development registries count here only) with its chain's node, so `trustpoint verify`
 * checks its certificates against this instance's chain, whatever ports it runs on.
 */
async function pinThisInstance(
  instance: { publicUrl: string; localNodes: Record<string, string[]> },
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const path = trustFilePath(env);
  const document = await fetchTrustDocument(instance.publicUrl);
  const file = await readTrustFile(path);
  await writeTrustFile(path, {
    origins: [
      ...file.origins.filter((entry) => entry.document.origin !== document.origin),
      { document, local: true, rpc: instance.localNodes, pinnedAt: new Date().toISOString() },
    ],
  });
  return path;
}

export function startCommand(program: Command): void {
  program
    .command('start')
    .description(
      'run the whole service in this process: the embedded chain and database by default (what `npm start` runs); Ctrl-C stops it',
    )
    .action(async () => {
      const instance = await startOrRefuse(serveAll);
      try {
        const path = await pinThisInstance(instance, process.env);
        console.log(
          `\nThis machine's verifiers trust this instance (${instance.publicUrl}): pinned in ${path}\n  npx trustpoint verify <certificate.json>`,
        );
      } catch (error) {
        console.log(
          `\nThis instance could not be pinned for this machine's verifiers (${error instanceof Error ? error.message : String(error)}); trust it with: npx trustpoint trust add ${instance.publicUrl}`,
        );
      }
    });
}
