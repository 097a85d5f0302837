// A soak under faults, on loopback: mixed load (content, file and URL certificates, assets and
// evidences, lists, verifications, revocations, signatures) from many users through two processes
// of each API and two anchoring processes on a PostgreSQL cluster of its own and an interval-mined
// chain, while API processes, anchoring processes and the chain node (its relay) are SIGKILLed and
// PostgreSQL crash-restarted; then every acknowledgement is checked. Exits 1 when anything
// acknowledged was lost, doubled or mismatched, or an answer was a failure.
// Run: npm run bench:soak -- [--duration 10m] [--api-kills 20] [--anchor-kills 10] [--node-kills 5]
//        [--postgres-restarts 1] [--clients 32] [--users 16] [--results bench/results]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SOAK_OPTIONS, runSoak, type SoakOptions } from './soak/run-soak.js';
import { soakMarkdown, writeSoakResults } from './soak/soak-report.js';

/** `90s`, `10m` or plain seconds, into milliseconds. */
function duration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(text.trim());
  if (match === null) throw new Error(`--duration must look like 90s, 10m or 600, got "${text}"`);
  return Number(match[1]) * (match[2] === 'm' ? 60_000 : 1_000);
}

function count(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${name} must be a whole number, got "${text}"`);
  return n;
}

export function soakOptionsFromArgs(args: string[]): { options: SoakOptions; results: string } {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: 'string' },
      'api-kills': { type: 'string' },
      'anchor-kills': { type: 'string' },
      'node-kills': { type: 'string' },
      'postgres-restarts': { type: 'string' },
      clients: { type: 'string' },
      users: { type: 'string' },
      results: { type: 'string' },
    },
  });
  const defaults = DEFAULT_SOAK_OPTIONS;
  return {
    options: {
      ...defaults,
      durationMs: values.duration === undefined ? defaults.durationMs : duration(values.duration),
      faults: {
        apiKills: count(values['api-kills'], defaults.faults.apiKills, 'api-kills'),
        anchorKills: count(values['anchor-kills'], defaults.faults.anchorKills, 'anchor-kills'),
        nodeKills: count(values['node-kills'], defaults.faults.nodeKills, 'node-kills'),
        postgresRestarts: count(
          values['postgres-restarts'],
          defaults.faults.postgresRestarts,
          'postgres-restarts',
        ),
      },
      clients: count(values.clients, defaults.clients, 'clients') || 1,
      users: count(values.users, defaults.users, 'users') || 1,
    },
    results: values.results ?? join(__dirname, '..', 'results'),
  };
}

async function main(): Promise<void> {
  const { options, results } = soakOptionsFromArgs(process.argv.slice(2));
  const result = await runSoak(options);
  console.log(soakMarkdown(result));
  const written = await writeSoakResults(result, results);
  console.log(`Written: ${written.join(', ')} (and soak-latest.{md,json})`);
  process.exitCode = result.passed ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
