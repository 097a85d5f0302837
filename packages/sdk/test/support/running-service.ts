import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { launch, type RunningTrustpoint } from '@trustpoint/launcher/launcher';
import { readLauncherConfig } from '@trustpoint/launcher/launcher-config';
import pino from 'pino';

/**
 * The whole service as `trustpoint start` runs it (embedded chain, PGlite, both APIs) on free
 * ports and a fresh data directory. URL certificates may fetch from this machine.
 */
export async function startService(): Promise<RunningTrustpoint> {
  const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-sdk-'));
  return launch(
    'all',
    {
      ...readLauncherConfig({}),
      dataDir,
      chainHost: '127.0.0.1',
      chainPort: await freePort(),
      apiHost: '127.0.0.1',
      certApiPort: await freePort(),
      trackApiPort: await freePort(),
      urlFetchAllowPrivate: true,
    },
    pino({ level: 'silent' }),
  );
}

/** A page a URL certificate can point at. */
export async function servePage(
  body: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/page.txt`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
