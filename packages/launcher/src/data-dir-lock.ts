import { readFileSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RoleConfigError } from './role-config-error.js';
import { isAlive } from './service-pid-file.js';

/**
 * `<dataDir>/data-dir.lock`: held by the one process that runs a data directory's embedded
 * database or embedded chain. PGlite has no lock of its own and the chain's journal is replayed
 * and appended by whoever starts it, so a second `trustpoint start` on the same directory (other
 * ports, a second terminal) would run a database and a chain of its own beside the first: both
 * acknowledge certificates, one's are lost, and the journal no longer replays.
 */
const lockFileOf = (dataDir: string) => join(dataDir, 'data-dir.lock');

/** When a process started (Linux: clock ticks since boot), to tell it from a later one given its pid. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

interface Holder {
  pid: number;
  startTime: string | undefined;
}

function holderOf(text: string): Holder | undefined {
  const [pid, startTime] = text.trim().split(' ');
  const number = Number(pid);
  if (!Number.isSafeInteger(number) || number <= 0) return undefined;
  return { pid: number, startTime: startTime === '' ? undefined : startTime };
}

/**
 * Whether the process a lock names still runs: its pid alive and, where the system says when it
 * started, started then (a pid given to another process since, as a container's restart does, is
 * not the holder).
 */
function holds({ pid, startTime }: Holder): boolean {
  if (!isAlive(pid)) return false;
  const now = startTimeOf(pid);
  if (startTime !== undefined && now !== undefined) return now === startTime;
  // Without start times, a lock naming this process's own pid is an earlier one's.
  return pid !== process.pid;
}

/**
 * Claims the data directory for this process, or refuses (`RoleConfigError`, naming the process
 * that holds it) while another live one does. A lock left by a process that ended without
 * releasing it (killed, its machine restarted) is taken over. Returns the release.
 */
export async function claimDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const file = lockFileOf(dataDir);
  const mine = `${String(process.pid)} ${startTimeOf(process.pid) ?? ''}\n`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(mine);
      await handle.close();
      return async () => {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        if (text === mine) await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
    }
    const text = await readFile(file, 'utf8').catch(() => '');
    const holder = holderOf(text);
    if (holder !== undefined && holds(holder)) {
      throw new RoleConfigError(
        `TRUSTPOINT_DATA_DIR ${dataDir} is in use by a running Trustpoint (pid ${String(holder.pid)}): its embedded database and chain belong to one process. Stop that one first, or give this one a TRUSTPOINT_DATA_DIR of its own`,
      );
    }
    // Left by a process that is gone: take it over (only if it is still that lock).
    if ((await readFile(file, 'utf8').catch(() => '')) === text) await rm(file, { force: true });
  }
}
