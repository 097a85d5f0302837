// The embedded service at rest, as `npm start` runs it (`trustpoint start` in a child process:
// both APIs, anchoring and PGlite in one process; the chain node a process of its own): resident
// memory and CPU at idle after the start (goal <= 256 MiB), then again after a burst of
// certificates, once the service has been quiet for a while.
// Run: npm run bench:idle   (BENCH_IDLE_SECONDS 30, BENCH_CERTIFICATES 5000, BENCH_CLIENTS 100)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { clientThreads, runHttpLoad } from './support/http-load.js';
import { describeMachineSpeed, jsonRoundTripsPerSecond } from './support/machine-check.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? '30');
const CERTIFICATES = Number(process.env.BENCH_CERTIFICATES ?? '5000');
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? '100');
const GOAL_MIB = 256;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/** CPU seconds the process has used (user and system), from /proc/<pid>/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the name), in clock ticks.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory after `seconds` of quiet, and the share of a core used meanwhile. */
async function atRest(service: ServiceProcess, seconds: number) {
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const before = await cpuSeconds(pid);
  await sleep(seconds * 1_000);
  const cpu = ((await cpuSeconds(pid)) - before) / seconds;
  return { rssMiB: (await service.memory()).rssMiB, cpu };
}

const mib = (value: number) => `${value.toFixed(0)} MiB`;
const share = (value: number) => `${(value * 100).toFixed(1)}% of a core`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'trustpoint-bench-idle-'));
  const certPort = await freePort();
  console.log(
    `The embedded service at rest (trustpoint start in a child process, PGlite, local chain); ${String(IDLE_SECONDS)} s quiet before each reading`,
  );
  console.log(describeMachineSpeed(jsonRoundTripsPerSecond()));
  const service = await startServiceProcess('trustpoint start', ['start'], {
    CERT_API_PORT: String(certPort),
    TRACK_API_PORT: String(await freePort()),
    CHAIN_PORT: String(await freePort()),
    TRUSTPOINT_DATA_DIR: join(dir, 'data'),
    TRUSTPOINT_TRUST_FILE: join(dir, 'trust.json'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  });
  try {
    const started = await atRest(service, IDLE_SECONDS);
    console.log(
      `after start    ${mib(started.rssMiB)} resident (goal <= ${String(GOAL_MIB)} MiB), CPU ${share(started.cpu)}`,
    );
    const token = (await readFile(join(dir, 'data', 'local-token'), 'utf8')).trim();
    // Each answered once anchored.
    const load = await runHttpLoad({
      targets: [
        {
          url: `http://127.0.0.1:${String(certPort)}/cert/v2/certificates?type=content&networkId=31337`,
          token,
        },
      ],
      body: 'content-certificate',
      count: CERTIFICATES,
      clients: CLIENTS,
      threads: clientThreads(),
    });
    const peak = (await service.memory()).peakMiB;
    const answers = [...load.statuses].map(([status, n]) => `${String(status)}: ${String(n)}`);
    console.log(
      `load           ${String(CERTIFICATES)} content certificates from ${String(CLIENTS)} clients in ${load.seconds.toFixed(1)} s (${answers.join(', ')}); peak ${mib(peak)}`,
    );
    const after = await atRest(service, IDLE_SECONDS);
    console.log(
      `after load     ${mib(after.rssMiB)} resident ${String(IDLE_SECONDS)} s after the last answer, CPU ${share(after.cpu)}`,
    );
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
