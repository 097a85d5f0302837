import { dataDirOf } from '@trustpoint/launcher/launcher-config';
import { localTokenPath, readLocalToken } from '@trustpoint/launcher/local-token';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { serviceTimeoutMs } from '../service-timeout.js';
import type { AdminConnection } from './admin-client.js';

export interface ConnectionOptions {
  url?: string;
  token?: string;
  dataDir?: string;
}

/**
 * Where the admin API is and which token to send: `--url` or `TRUSTPOINT_URL` (default the
 * local certificate API, `CERT_API_PORT` or 8080); `--token` or `TRUSTPOINT_TOKEN`, else the
 * local user's token that a service started on this machine left in its data directory; how long
 * each request may take, `TRUSTPOINT_TIMEOUT_SECONDS`.
 */
export async function resolveConnection(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv,
): Promise<AdminConnection> {
  const url =
    options.url ?? env.TRUSTPOINT_URL ?? `http://127.0.0.1:${env.CERT_API_PORT ?? '8080'}`;
  const timeoutMs = serviceTimeoutMs(env);
  const given = options.token ?? env.TRUSTPOINT_TOKEN;
  if (given !== undefined && given !== '') return { url, token: given, timeoutMs };
  const dataDir = options.dataDir ?? dataDirOf(env);
  const token = await readLocalToken(dataDir);
  if (token === undefined) {
    throw new CliError(
      `no token: set TRUSTPOINT_TOKEN (or pass --token), or run this where the service was started (it leaves the local admin's token in ${localTokenPath(dataDir)})`,
      EXIT.unauthorized,
    );
  }
  return { url, token, timeoutMs };
}
