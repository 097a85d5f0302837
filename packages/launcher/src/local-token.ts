import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where a running service leaves the local user's token, readable by its owner only. */
export function localTokenPath(dataDir: string): string {
  return join(dataDir, 'local-token');
}

/**
 * Leaves the local user's access token in the data directory (mode 0600), so that `trustpoint
 * admin` on the same machine finds it without a `--token`, and without opening the database
 * (PGlite allows one process).
 */
export async function writeLocalToken(dataDir: string, token: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(localTokenPath(dataDir), `${token}\n`, { mode: 0o600 });
}

/** The token a running service left in `dataDir`, or undefined when there is none. */
export async function readLocalToken(dataDir: string): Promise<string | undefined> {
  try {
    const token = (await readFile(localTokenPath(dataDir), 'utf8')).trim();
    return token === '' ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
