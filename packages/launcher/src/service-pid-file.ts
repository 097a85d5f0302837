import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `<dataDir>/service.pid`: written while a process holds the embedded database of a data
 * directory, so that `trustpoint migrate` does not open it beside the service (PGlite belongs to
 * one process).
 */
const pidFileOf = (dataDir: string) => join(dataDir, 'service.pid');

export async function writeServicePid(dataDir: string): Promise<void> {
  await writeFile(pidFileOf(dataDir), `${String(process.pid)}\n`);
}

export async function removeServicePid(dataDir: string): Promise<void> {
  await rm(pidFileOf(dataDir), { force: true });
}

/** The pid of a live process holding the data directory's embedded database, if any. */
export async function servicePidHolding(dataDir: string): Promise<number | undefined> {
  let pid: number;
  try {
    pid = Number((await readFile(pidFileOf(dataDir), 'utf8')).trim());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  return isAlive(pid) ? pid : undefined;
}

/** Whether a process with this pid runs (EPERM: it does, under another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
