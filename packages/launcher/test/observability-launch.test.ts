import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch } from '../src/launcher.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

describe('Health and metrics of the launched service', () => {
  it('when the service runs, then each API listener answers /healthz, /readyz and /metrics at its root without a token, and /metrics counts the API traffic by route', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-observability-'));
    const running = await launch('all', await testLaunchConfig(dataDir), silent);
    try {
      const created = await fetch(
        `${running.certApiUrl}/certificates?type=content&networkId=31337`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${running.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Hello', description: '', content: { hello: 'world' } }),
        },
      );
      expect(created.status).toBe(201);
      for (const apiUrl of [running.certApiUrl, running.trackApiUrl]) {
        const root = new URL(apiUrl).origin;
        const health = await fetch(`${root}/healthz`);
        expect(health.status).toBe(200);
        expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        const ready = await fetch(`${root}/readyz`);
        expect(ready.status).toBe(200);
        expect(((await ready.json()) as { status: string }).status).toBe('ready');
        expect((await fetch(`${root}/metrics`)).status).toBe(200);
      }
      const metrics = await (await fetch(`${new URL(running.certApiUrl).origin}/metrics`)).text();
      expect(metrics).toContain(
        'trustpoint_http_requests_total{method="POST",route="/cert/v2/certificates",status="201"} 1',
      );
      expect(metrics).toMatch(/trustpoint_anchor_records_anchored_total\{network="31337"\} [1-9]/);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
