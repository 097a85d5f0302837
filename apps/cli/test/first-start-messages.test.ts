import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustpointProcess } from './support/role-process.js';

// What a newcomer sees when `npm start` cannot listen: the reason and what to do, nothing else.
describe('trustpoint serve all on a port in use', () => {
  let dataDir: string;
  let busy: Server;
  let busyPort: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-port-in-use-'));
    busyPort = await freePort();
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('when the certificate API port is taken, then one line says so and what to do, with no stack trace, and it exits 1', async () => {
    // Act
    const service = trustpointProcess(['serve', 'all'], {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: '',
      CERT_API_PORT: String(busyPort),
      TRACK_API_PORT: String(await freePort()),
      CHAIN_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
    });
    const code = await service.exited;

    // Assert
    const output = service.output();
    expect(code, output).toBe(1);
    expect(output).toContain(
      `error: 127.0.0.1:${String(busyPort)} is already in use (is Trustpoint already running?): stop that process, or choose free ports with CERT_API_PORT, TRACK_API_PORT and HEALTH_PORT`,
    );
    expect(output).not.toMatch(/^\s+at /m);
    // The anchoring engine may have tried a node still starting: said calmly, not as a failure.
    expect(output).not.toContain('anchoring: sending failed');
  }, 120_000);

  it('when the local chain port is taken, then one line says so and what to do, with no stack trace, and it exits 1', async () => {
    // Act
    const service = trustpointProcess(['serve', 'all'], {
      TRUSTPOINT_DATA_DIR: dataDir,
      DATABASE_URL: '',
      CERT_API_PORT: String(await freePort()),
      TRACK_API_PORT: String(await freePort()),
      CHAIN_PORT: String(busyPort),
      LOG_LEVEL: 'info',
    });
    const code = await service.exited;

    // Assert
    const output = service.output();
    expect(code, output).toBe(1);
    expect(output).toContain(
      `error: 127.0.0.1:${String(busyPort)} is already in use (is Trustpoint already running?): stop that process, or choose a free port for the local chain with CHAIN_PORT`,
    );
    expect(output).not.toMatch(/^\s+at /m);
  }, 120_000);
});
