import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import type { DatabaseBackend } from '@trustpoint/db';
import { launch, type RunningTrustpoint } from '@trustpoint/launcher/launcher';
import { readLauncherConfig, type LauncherConfig } from '@trustpoint/launcher/launcher-config';
import {
  freshPostgresDatabase as freshDatabaseOnServer,
  type FreshPostgresDatabase,
} from '@trustpoint/test-database';
import { readTrustDocument } from '@trustpoint/verifier';
import pino from 'pino';
import { run } from '../../src/program.js';
import { fetchTrustDocument, writeTrustFile } from '../../src/trust/trust-store.js';

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
  // Never the machine's own trust file: each call trusts only what its test gives it.
  env = {
    TRUSTPOINT_TRUST_FILE: join(tmpdir(), `trustpoint-no-trust-${randomUUID()}.json`),
    ...env,
  };
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
  /** Stops the service and drops its PostgreSQL database, if it had one. */
  stop(): Promise<void>;
  dataDir: string;
  /** The certificate API's origin, what `--url` takes. */
  url: string;
}

/**
 * A database of its own on the PostgreSQL server of `DATABASE_URL`, as a deployment has: the
 * service's chain is new each time, so rows of an earlier chain (nonces above all) must not be
 * there. Returns its URL and how to drop it.
 */
export function freshPostgresDatabase(): Promise<FreshPostgresDatabase> {
  return freshDatabaseOnServer('trustpoint_cli_test');
}

/** The whole service, as `trustpoint start` runs it, on free ports and a fresh data directory. */
export async function startService(
  backend: DatabaseBackend,
  /** Settings of the launcher's own (e.g. `dnsServers`). */
  overrides: Partial<LauncherConfig> = {},
): Promise<RunningService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-cli-'));
  const database = backend === 'postgres' ? await freshPostgresDatabase() : undefined;
  const databaseUrl = database?.url;
  const certApiPort = await freePort();
  const running = await launch(
    'all',
    {
      ...readLauncherConfig({}),
      dataDir,
      chainHost: '127.0.0.1',
      chainPort: await freePort(),
      apiHost: '127.0.0.1',
      certApiPort,
      publicUrl: `http://127.0.0.1:${String(certApiPort)}`,
      trackApiPort: await freePort(),
      databaseUrl,
      ...overrides,
    },
    pino({ level: 'silent' }),
  );
  return {
    running,
    dataDir,
    url: new URL(running.certApiUrl).origin,
    stop: async () => {
      await running.stop();
      await database?.drop();
    },
  };
}

/**
 * A trust file pinning the service as `trustpoint start` pins its own instance: local (its
 * development registries count), with its chain's node. What `TRUSTPOINT_TRUST_FILE` takes.
 */
export async function localTrustFile(
  service: RunningService,
  options: {
    withNodes?: boolean;
    /** Replace the published status registry by this address, or drop it (null). */
    statusRegistry?: string | null;
    /**
     * Pin the document as another origin's (a service sharing these registries): the registries
     * are trusted, the service's own origin is not.
     */
    origin?: string;
  } = {},
): Promise<string> {
  const path = join(service.dataDir, `trust-${randomUUID()}.json`);
  const chainUrl = service.running.embeddedChain?.url;
  // Republished under another origin, the document may name any origin of its own (the
  // service's public URL need not be where it listens).
  const published =
    options.origin === undefined
      ? await fetchTrustDocument(service.url)
      : readTrustDocument(await (await fetch(`${service.url}/.well-known/trustpoint.json`)).json());
  const { statusRegistry } = options;
  const republished =
    options.origin === undefined ? published : { ...published, origin: options.origin };
  const document =
    statusRegistry === undefined
      ? republished
      : {
          ...republished,
          networks: republished.networks.map((network) => ({
            ...network,
            registries: [
              ...network.registries.filter((registry) => registry.kind !== 'statusRegistry'),
              ...(statusRegistry === null
                ? []
                : [{ kind: 'statusRegistry' as const, address: statusRegistry }]),
            ],
          })),
        };
  await writeTrustFile(path, {
    origins: [
      {
        document,
        local: true,
        ...(options.withNodes === false || chainUrl === undefined
          ? {}
          : { rpc: { '31337': [chainUrl] } }),
        pinnedAt: new Date().toISOString(),
      },
    ],
  });
  return path;
}
