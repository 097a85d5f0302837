import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { claimDataDir } from '../src/data-dir-lock.js';
import { launch } from '../src/launcher.js';
import { RoleConfigError } from '../src/role-config-error.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

/** The pid of a process that has ended. */
function endedPid(): number {
  const ended = spawnSync(process.execPath, ['-e', '']);
  return ended.pid;
}

describe('one process per data directory', () => {
  it('when the service runs on a data directory, then a second start on it (other ports) is refused before it opens the database or the chain; once the first stops, it starts', async () => {
    // Arrange
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-data-dir-'));
    const first = await launch('all', await testLaunchConfig(dataDir), silent);
    const secondConfig = await testLaunchConfig(dataDir);
    let refusal: unknown;
    try {
      const journalBefore = await readFile(join(dataDir, 'chain', 'chain-journal.ndjson'), 'utf8');

      // Act
      refusal = await launch('all', secondConfig, silent).then(
        async (second) => {
          await second.stop();
          return undefined;
        },
        (error: unknown) => error,
      );

      // Assert: nothing of the second ran, the first serves on.
      expect(refusal).toBeInstanceOf(RoleConfigError);
      expect((refusal as Error).message).toBe(
        `TRUSTPOINT_DATA_DIR ${dataDir} is in use by a running Trustpoint (pid ${String(process.pid)}): its embedded database and chain belong to one process. Stop that one first, or give this one a TRUSTPOINT_DATA_DIR of its own`,
      );
      await expect(
        fetch(`http://127.0.0.1:${String(secondConfig.certApiPort)}/healthz`),
      ).rejects.toThrow();
      expect(await readFile(join(dataDir, 'chain', 'chain-journal.ndjson'), 'utf8')).toBe(
        journalBefore,
      );
      expect((await fetch(`${first.certApiUrl.replace(/\/cert\/v2$/, '')}/healthz`)).status).toBe(
        200,
      );
    } finally {
      await first.stop();
    }
    const afterStop = await launch('all', secondConfig, silent);
    await afterStop.stop();
    expect(await readdir(dataDir)).not.toContain('data-dir.lock');
    await rm(dataDir, { recursive: true, force: true });
  }, 180_000);

  it('when the lock was left by a process that ended (killed), or names a pid another process was given since, then it is taken over; one held by a live process is refused', async () => {
    // Arrange
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-data-dir-'));
    const lock = join(dataDir, 'data-dir.lock');
    await writeFile(lock, `${String(endedPid())} 1\n`);

    // Act
    const afterEnded = await claimDataDir(dataDir);
    const held = await readFile(lock, 'utf8');
    const whileHeld = await claimDataDir(dataDir).catch((error: unknown) => error);
    await afterEnded();
    // This process's pid, but a start time that is not its own: a process before it had that pid.
    await writeFile(lock, `${String(process.pid)} 1\n`);
    const afterReuse = await claimDataDir(dataDir);
    await afterReuse();

    // Assert
    expect(held.startsWith(`${String(process.pid)} `)).toBe(true);
    expect(whileHeld).toBeInstanceOf(RoleConfigError);
    expect(await readdir(dataDir)).toEqual([]);
    await rm(dataDir, { recursive: true, force: true });
  });
});
