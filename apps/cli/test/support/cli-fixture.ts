import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import type { DatabaseBackend } from '@trustpoint/db';
import { launch, type RunningTrustpoint } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import pino from 'pino';
import { run } from '../../src/program.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `trustpoint <argv>` in this process with its output captured. */
export async function trustpoint(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

export interface RunningService {
  running: RunningTrustpoint;
  dataDir: string;
  /** The certificate API's origin, what `--url` takes. */
  url: string;
}

/** The whole service, as `trustpoint start` runs it, on free ports and a fresh data directory. */
export async function startService(backend: DatabaseBackend): Promise<RunningService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-cli-'));
  const databaseUrl = backend === 'postgres' ? process.env.DATABASE_URL : undefined;
  const running = await launch(
    {
      ...readLauncherConfig({}),
      dataDir,
      chainHost: '127.0.0.1',
      chainPort: await freePort(),
      apiHost: '127.0.0.1',
      certApiPort: await freePort(),
      trackApiPort: await freePort(),
      databaseUrl,
    },
    pino({ level: 'silent' }),
  );
  return { running, dataDir, url: new URL(running.certApiUrl).origin };
}
