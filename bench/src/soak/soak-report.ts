// A soak's result as markdown and JSON, in bench/results: soak-<date>.{md,json} and, the same,
// soak-latest.{md,json}.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SoakResult } from './run-soak.js';

const fixed = (n: number, digits = 1) => n.toFixed(digits);
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

export function soakMarkdown(result: SoakResult): string {
  const { options, load, machine } = result;
  const faultCounts = new Map<string, number>();
  for (const fault of result.faults) {
    faultCounts.set(fault.kind, (faultCounts.get(fault.kind) ?? 0) + 1);
  }
  const reconcile = result.reconcile.available
    ? `exit ${String(result.reconcile.exitCode)}; counts ${JSON.stringify(result.reconcile.counts)}`
    : 'not run: this build of `trustpoint` has no `reconcile` command';
  const lines = [
    `# Soak under faults: ${result.passed ? 'PASSED' : 'FAILED'}`,
    '',
    `Started ${result.startedAt}; ${fixed(options.durationMs / 60_000)} min of load from ${String(options.clients)} clients over ${String(options.users)} users through ${String(options.apiProcesses)} processes of each API, ${String(options.anchorProcesses)} anchoring processes, one PostgreSQL cluster of the soak's own, a Hardhat node mining a block every ${fixed(options.blockMs / 1_000)} s behind a JSON-RPC relay (${String(options.confirmations)} confirmations).`,
    `Machine: load average ${machine.loadAverageAtStart.map((n) => fixed(n)).join(', ')} at start, ${machine.loadAverageAtEnd.map((n) => fixed(n)).join(', ')} at end; ${fixed(machine.jsonRoundTripsPerS / 1_000, 0)}k JSON round trips/s.`,
    '',
    '## Verdict',
    '',
    result.problems.length === 0
      ? 'Every acknowledged record is anchored, once, with the hash the database holds; nothing on chain the database lacks; credits spent equal records paid for.'
      : result.problems.map((problem) => `- ${problem}`).join('\n'),
    '',
    '## Load',
    '',
    `${String(load.requests)} requests in ${fixed(load.seconds)} s (${fixed(load.requestsPerS)}/s); ${String(load.acknowledged)} records acknowledged (${fixed(load.acknowledgedPerS)}/s): ${Object.entries(
      load.acknowledgedByKind,
    )
      .map(([kind, n]) => `${String(n)} ${kind}`)
      .join(', ')}.`,
    '',
    table(
      ['Operation', 'Requests', 'p50 ms', 'p99 ms', 'Outcomes'],
      result.operations.map((op) => [
        op.operation,
        String(op.requests),
        fixed(op.p50Ms),
        fixed(op.p99Ms),
        Object.entries(op.outcomes)
          .map(([outcome, n]) => `${outcome}: ${String(n)}`)
          .join(', '),
      ]),
    ),
    '',
    '## Errors by kind',
    '',
    `Expected while a process or the node was away: ${
      Object.entries(result.errors.expected)
        .map(([kind, n]) => `${kind} ${String(n)}`)
        .join(', ') || 'none'
    }.`,
    `Unexpected (failures): ${
      Object.entries(result.errors.unexpected)
        .map(([kind, n]) => `${kind} ${String(n)}`)
        .join(', ') || 'none'
    }.`,
    '',
    '## Faults injected',
    '',
    `${[...faultCounts].map(([kind, n]) => `${String(n)} x ${kind}`).join(', ')}. A killed chain node is its JSON-RPC relay killed with SIGKILL (the Hardhat node keeps its chain in memory only): to the services, refused connections and requests cut in the middle.`,
    '',
    table(
      ['At s', 'Fault', 'Target', 'Back after ms'],
      result.faults.map((fault) => [
        fixed(fault.atS),
        fault.kind,
        fault.target,
        fault.error === undefined ? String(fault.downMs) : `did not restart: ${fault.error}`,
      ]),
    ),
    '',
    '## After the load',
    '',
    `Settled: every acknowledged record anchored ${fixed(result.settlement.seconds)} s after the load ended${
      result.settlement.unsettled.length === 0
        ? ''
        : `, except ${String(result.settlement.unsettled.length)}: ${result.settlement.unsettled
            .slice(0, 10)
            .map((u) => `${u.record} (${u.seen})`)
            .join('; ')}`
    }.`,
    `Chain: each acknowledged record read back with \`getTrustPoint\` / \`getEvidence\`; the registries hold ${String(result.chain.records)} records (events and data batches, \`eth_getLogs\`, \`eth_getCode\`), the database ${String(result.chain.anchoredInDatabase)} anchored; missing ${String(result.chain.missing)}, doubled ${String(result.chain.doubled)}, mismatched ${String(result.chain.mismatched)}, orphaned ${String(result.chain.orphaned)}.`,
    `Credits: ${String(result.credits.spent)} spent by ${String(result.credits.users)} users (admin ledger) for ${String(result.credits.paidRecords)} records paid for${
      result.credits.mismatchedUsers.length === 0
        ? ''
        : `; differ for ${result.credits.mismatchedUsers.join(', ')}`
    }.`,
    `Reconcile (\`trustpoint reconcile --json\`): ${reconcile}.`,
    '',
  ];
  return lines.join('\n');
}

/** Writes the result; returns the dated paths. */
export async function writeSoakResults(result: SoakResult, folder: string): Promise<string[]> {
  await mkdir(folder, { recursive: true });
  const stamp = result.startedAt.slice(0, 16).replace(':', '').replace('T', '-');
  const markdown = soakMarkdown(result);
  const json = `${JSON.stringify(result, null, 2)}\n`;
  const paths: string[] = [];
  for (const name of [`soak-${stamp}`, 'soak-latest']) {
    await writeFile(join(folder, `${name}.md`), markdown);
    await writeFile(join(folder, `${name}.json`), json);
    paths.push(join(folder, `${name}.md`), join(folder, `${name}.json`));
  }
  return paths.slice(0, 2);
}
