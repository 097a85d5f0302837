import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance, findUser } from '@trustpoint/db';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '@trustpoint/http';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch } from '../src/launcher.js';
import { readLauncherConfig } from '../src/launcher-config.js';
import { LOCAL_USER_ID, loadOrCreateSecrets } from '../src/local-identity.js';

const silent = pino({ level: 'silent' });

describe('Embedded launcher', () => {
  it('when started twice on one data directory, then the second start resumes chain, deployment, database and user', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-'));
    const config = {
      // The defaults of every setting this test does not care about.
      ...readLauncherConfig({}),
      dataDir,
      chainHost: '127.0.0.1',
      chainPort: await freePort(),
      apiHost: '127.0.0.1',
      certApiPort: await freePort(),
      trackApiPort: await freePort(),
      databaseUrl: undefined,
    };

    const first = await launch(config, silent);
    const firstDeployment = first.deployment;
    const created = await fetch(`${first.certApiUrl}/certificates?type=content&networkId=31337`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Hello', description: '', content: { hello: 'world' } }),
    });
    const certificate = (
      (await created.json()) as { data: { certID: string; metadata: unknown[] } }
    ).data;
    const asset = await fetch(`${first.trackApiUrl}/assets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ assetId: 'pallet-1', data: { id: 'p1' }, networkId: 31337 }),
    });
    const { trackID } = ((await asset.json()) as { data: { trackID: string } }).data;
    const evidence = await fetch(`${first.trackApiUrl}/assets/${trackID}/transactions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { step: 'shipped' } }),
    });
    const user = await findUser(first.database.knex, LOCAL_USER_ID);
    const credits = await findCreditBalance(first.database.knex, LOCAL_USER_ID);
    await first.stop();

    const second = await launch(config, silent);
    try {
      expect(user?.planId).toBe('local');
      expect(credits).toBeGreaterThan(0);
      expect(first.restoredTransactions).toBe(0);
      expect(second.restoredTransactions).toBeGreaterThanOrEqual(2);
      expect(second.deployment.trustPointRegistry).toBe(firstDeployment.trustPointRegistry);
      expect(await findUser(second.database.knex, LOCAL_USER_ID)).toEqual(user);
      expect(second.networks.list().map((network) => network.networkId)).toEqual(['31337']);
      expect(created.status).toBe(201);
      const readBack = await fetch(
        `${second.certApiUrl}/certificates/certID/${certificate.certID}`,
        {
          headers: { Authorization: `Bearer ${second.token}` },
        },
      );
      expect(readBack.status).toBe(200);
      expect(((await readBack.json()) as { data: unknown }).data).toEqual(certificate);
      expect(certificate.metadata).toHaveLength(1);
      expect([asset.status, evidence.status]).toEqual([201, 201]);
      const trackedBack = await fetch(`${second.trackApiUrl}/assets/${trackID}`, {
        headers: { Authorization: `Bearer ${second.token}` },
      });
      const tracked = ((await trackedBack.json()) as { data: { transactions: unknown[] } }).data;
      expect(tracked.transactions).toHaveLength(2);
      expect(tracked.transactions[1]).toMatchObject({ metadata: { step: 'shipped' } });
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('when started, then the printed token is a valid HS256 token for the local user', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-'));
    const running = await launch(
      {
        ...readLauncherConfig({}),
        dataDir,
        chainHost: '127.0.0.1',
        chainPort: await freePort(),
        apiHost: '127.0.0.1',
        certApiPort: await freePort(),
        trackApiPort: await freePort(),
        databaseUrl: undefined,
      },
      silent,
    );
    try {
      const { jwtSecret } = await loadOrCreateSecrets(join(dataDir, 'secrets.json'));

      const claims = jwt.verify(running.token, jwtSecret, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
      });

      expect(typeof claims === 'object' && claims.sub).toBe(LOCAL_USER_ID);
      expect(() =>
        jwt.verify(running.token, 'another secret', { algorithms: ['HS256'] }),
      ).toThrow();
      expect((await stat(join(dataDir, 'secrets.json'))).mode & 0o077).toBe(0);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
