// A PostgreSQL cluster of the benchmark's own (initdb into a temporary folder, its own port on
// 127.0.0.1), so that a benchmark may stop and restart its database without disturbing anyone else
// on the machine's server.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@trustpoint/contracts';

const run = promisify(execFile);

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, no password (trust on loopback). */
  url: string;
  port: number;
  /** A URL of the same server with another database name. */
  databaseUrl(name: string): string;
  /** Stops the server as a crash would (`pg_ctl stop -m immediate`) and starts it again. */
  crashRestart(): Promise<{ downMs: number }>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

/** Where this machine's PostgreSQL programs are: `pg_config --bindir`, or the newest under /usr/lib/postgresql. */
export async function postgresBinDir(): Promise<string | undefined> {
  try {
    const { stdout } = await run('pg_config', ['--bindir']);
    const dir = stdout.trim();
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  } catch {
    // no pg_config on the PATH: look in the usual place
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = (await readdir(root)).filter((name) => /^\d+$/.test(name));
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

/** initdb, then start on a free port; as the `postgres` user when this process runs as root. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const binDir = await postgresBinDir();
  if (binDir === undefined) {
    throw new Error(
      'PostgreSQL programs not found (pg_config --bindir, /usr/lib/postgresql/<version>/bin): install PostgreSQL',
    );
  }
  const asRoot = userInfo().uid === 0;
  const folder = await mkdtemp(join(tmpdir(), 'trustpoint-postgres-'));
  const dataDir = join(folder, 'data');
  const logFile = join(folder, 'server.log');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(folder, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(folder, 0o700);
  const pg = (program: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(binDir, program), ...args])
      : run(join(binDir, program), args);

  await pg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${String(port)}`,
    "-c listen_addresses='127.0.0.1'",
    `-c unix_socket_directories='${folder}'`,
    '-c max_connections=200',
  ].join(' ');
  const start = () => pg('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', 'start']);
  const stop = (mode: 'immediate' | 'fast') =>
    pg('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
  await start();
  const url = `postgres://postgres@127.0.0.1:${String(port)}/postgres`;
  return {
    url,
    port,
    databaseUrl(name) {
      return `postgres://postgres@127.0.0.1:${String(port)}/${name}`;
    },
    async crashRestart() {
      const stopped = Date.now();
      await stop('immediate');
      await start();
      return { downMs: Date.now() - stopped };
    },
    async destroy() {
      await stop('fast').catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
