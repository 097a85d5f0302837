import { join } from 'node:path';

/** Everything the embedded set-up needs, read once from the environment with working defaults. */
export interface LauncherConfig {
  /** Where the chain journal, the embedded database, deployments and secrets live. */
  dataDir: string;
  chainHost: string;
  chainPort: number;
  /** Where the APIs listen. */
  apiHost: string;
  certApiPort: number;
  /** A PostgreSQL server to use instead of the embedded database. */
  databaseUrl: string | undefined;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${value}"`);
  }
  return parsed;
}

export function readLauncherConfig(env: NodeJS.ProcessEnv = process.env): LauncherConfig {
  return {
    // INIT_CWD: where the user ran `npm start`, rather than this package's folder.
    dataDir: env.TRUSTPOINT_DATA_DIR ?? join(env.INIT_CWD ?? process.cwd(), '.trustpoint'),
    chainHost: env.CHAIN_HOST ?? '127.0.0.1',
    chainPort: port(env.CHAIN_PORT, 8545, 'CHAIN_PORT'),
    apiHost: env.API_HOST ?? '127.0.0.1',
    certApiPort: port(env.CERT_API_PORT, 8080, 'CERT_API_PORT'),
    databaseUrl: env.DATABASE_URL === '' ? undefined : env.DATABASE_URL,
  };
}
