import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustpointProcess, untilRunning } from './support/role-process.js';

/** The processes whose parent is `pid`, with their command lines (Linux's /proc). */
async function childrenOf(pid: number): Promise<{ pid: number; command: string }[]> {
  const found: { pid: number; command: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      const command = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      found.push({ pid: Number(entry), command });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

// An operator's bad day: the embedded chain's node dies under the running service.
describe('trustpoint serve all when its chain node dies', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-chain-ends-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async (options: { group?: boolean } = {}) =>
    trustpointProcess(
      ['serve', 'all'],
      {
        TRUSTPOINT_DATA_DIR: dataDir,
        DATABASE_URL: '',
        CERT_API_PORT: String(await freePort()),
        TRACK_API_PORT: String(await freePort()),
        CHAIN_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
      },
      options,
    );

  it('when the chain node is killed, then the service says so and stops with exit code 1 instead of answering as if healthy', async () => {
    // Arrange
    const service = await start();
    try {
      await untilRunning(service);
      const node = (await childrenOf(service.child.pid ?? -1)).find(({ command }) =>
        command.includes('hardhat-node'),
      );
      expect(node, service.output()).toBeDefined();

      // Act
      process.kill(node?.pid ?? -1, 'SIGKILL');
      const code = await service.exited;

      // Assert
      const output = service.output();
      expect(code, output).toBe(1);
      expect(output).toContain("the embedded chain's node ended (SIGKILL)");
      expect(output).toContain('stopped');
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 180_000);

  it('when Ctrl-C signals the service and its chain node together, then it stops cleanly (exit 0), no failure said', async () => {
    // Arrange: a terminal's foreground job, every process of it signalled at once.
    const service = await start({ group: true });
    try {
      await untilRunning(service);

      // Act
      process.kill(-(service.child.pid ?? 0), 'SIGINT');
      const code = await service.exited;

      // Assert
      const output = service.output();
      expect(code, output).toBe(0);
      expect(output).not.toContain("the embedded chain's node ended");
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 180_000);
});
