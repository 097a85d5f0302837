import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import workerThreads from 'node:worker_threads';
import { createDatabase, findCreditBalance, findUser } from '@trustpoint/db';
import { AccessTokens, TOKEN_AUDIENCE, TOKEN_ISSUER } from '@trustpoint/http';
import { JsonRpcProvider } from 'ethers';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { launch } from '../src/launcher.js';
import { LOCAL_USER_ID, loadOrCreateSecrets } from '../src/local-identity.js';
import { testLaunchConfig } from './support/test-launch-config.js';

const silent = pino({ level: 'silent' });

describe('Embedded launcher', () => {
  it('when started twice on one data directory, then the second start resumes chain, deployment, database and user', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-'));
    const config = await testLaunchConfig(dataDir);

    const first = await launch('all', config, silent);
    const firstDeployment = first.embeddedChain?.deployment;
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

    const second = await launch('all', config, silent);
    try {
      expect(user?.planId).toBe('local');
      expect(credits).toBeGreaterThan(0);
      expect(first.embeddedChain?.restoredTransactions).toBe(0);
      expect(second.embeddedChain?.restoredTransactions).toBeGreaterThanOrEqual(2);
      expect(second.embeddedChain?.deployment.trustPointRegistry).toBe(
        firstDeployment?.trustPointRegistry,
      );
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
    const running = await launch('all', await testLaunchConfig(dataDir), silent);
    try {
      const { jwtSecret } = await loadOrCreateSecrets(join(dataDir, 'secrets.json'));

      // AccessTokens accepts HS256 only, with the service's issuer and audience.
      const tokensUnder = (secret: string) =>
        new AccessTokens({ secret, issuer: TOKEN_ISSUER, audience: TOKEN_AUDIENCE });

      const claims = await tokensUnder(jwtSecret).verify(running.token);

      expect(claims.subject).toBe(LOCAL_USER_ID);
      await expect(tokensUnder('another secret').verify(running.token)).rejects.toThrow();
      expect((await stat(join(dataDir, 'secrets.json'))).mode & 0o077).toBe(0);
    } finally {
      await running.stop();
    }
  }, 120_000);
});

/** The processes this test process has started and not yet reaped (Linux `/proc`). */
async function childPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last ')'.
    const line = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = line.slice(line.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid === String(process.pid)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Records the worker threads started while `run` runs, and whether each has exited: the anchoring
 * thread is created through `worker_threads.Worker`, read from the module at each start.
 */
async function withWorkerRecording<T>(
  run: (workers: { exited: boolean }[]) => Promise<T>,
): Promise<T> {
  const workers: { exited: boolean }[] = [];
  const Original = workerThreads.Worker;
  workerThreads.Worker = class RecordedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      const record = { exited: false };
      workers.push(record);
      this.once('exit', () => {
        record.exited = true;
      });
    }
  };
  try {
    return await run(workers);
  } finally {
    workerThreads.Worker = Original;
  }
}

const serverUrl = process.env.DATABASE_URL;

describe.skipIf(!serverUrl)('Launcher on PostgreSQL (skipped unless DATABASE_URL is set)', () => {
  it('when launched on a PostgreSQL database, then certificates and evidences are anchored by the anchoring thread, and stop() leaves no thread, process or connection behind', async () => {
    if (!serverUrl) throw new Error('DATABASE_URL');
    // A database of its own on that server, as the benchmarks use, dropped afterwards.
    const name = `trustpoint_launcher_test_${String(Date.now())}`;
    const admin = await createDatabase({ url: serverUrl, migrate: false, poolMax: 1 });
    await admin.knex.raw('create database ??', [name]);
    const databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${name}`;
    const dataDir = await mkdtemp(join(tmpdir(), 'trustpoint-launch-pg-'));
    try {
      const childrenBefore = await childPids();
      const outcome = await withWorkerRecording(async (workers) => {
        const running = await launch(
          'all',
          await testLaunchConfig(dataDir, { databaseUrl: databaseUrl.toString() }),
          silent,
        );
        let stopped = false;
        try {
          const headers = {
            Authorization: `Bearer ${await running.mintToken(LOCAL_USER_ID)}`,
            'Content-Type': 'application/json',
          };
          const created = await fetch(
            `${running.certApiUrl}/certificates?type=content&networkId=31337`,
            {
              method: 'POST',
              headers,
              body: JSON.stringify({ name: 'Hello', description: '', content: { pg: true } }),
            },
          );
          const certificate = (
            (await created.json()) as {
              data: { metadata: { smartContract: string; transactionHash: string }[] };
            }
          ).data;
          const asset = await fetch(`${running.trackApiUrl}/assets`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ assetId: 'pallet-pg', data: { id: 'p1' }, networkId: 31337 }),
          });
          const { trackID } = ((await asset.json()) as { data: { trackID: string } }).data;
          const evidence = await fetch(`${running.trackApiUrl}/assets/${trackID}/transactions`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ metadata: { step: 'shipped' } }),
          });
          const evidenceBody = (
            (await evidence.json()) as { data: { smartContract: string; transactionHash: string } }
          ).data;
          const chain = running.embeddedChain;
          if (!chain) throw new Error('the embedded chain runs without a networks file');
          const provider = new JsonRpcProvider(chain.url, undefined, {
            staticNetwork: true,
          });
          const mined = await Promise.all(
            [certificate.metadata[0]?.transactionHash ?? '', evidenceBody.transactionHash].map(
              (hash) => provider.getTransactionReceipt(hash),
            ),
          );
          provider.destroy();
          const threadsWhileRunning = workers.length;
          // The chain node runs as a child process: this shows the check below can see one.
          const childrenWhileRunning = await childPids();

          stopped = true;
          await running.stop();
          return {
            statuses: [created.status, asset.status, evidence.status],
            certificate,
            evidenceBody,
            mined: mined.map((receipt) => [receipt?.status, receipt?.to?.toLowerCase()]),
            deployment: chain.deployment,
            threadsWhileRunning,
            childrenWhileRunning,
            threadsExited: workers.map((worker) => worker.exited),
            // Client connections only: an autovacuum worker visits every database now and then,
            // this one included, whatever the service did.
            connectionsLeft: await admin.knex
              .select('pid', 'application_name', 'state')
              .from('pg_stat_activity')
              .where({ datname: name, backend_type: 'client backend' }),
            chainUrl: chain.url,
          };
        } finally {
          if (!stopped) await running.stop();
        }
      });
      const childrenAfter = await childPids();
      const chainAfterStop = await fetch(outcome.chainUrl).then(
        () => 'answering',
        () => 'closed',
      );

      expect(outcome.statuses).toEqual([201, 201, 201]);
      expect(outcome.certificate.metadata).toHaveLength(1);
      expect(outcome.certificate.metadata[0]?.smartContract).toBe(
        outcome.deployment.trustPointRegistry,
      );
      expect(outcome.evidenceBody.smartContract).toBe(outcome.deployment.evidenceRepository);
      expect(outcome.mined).toEqual([
        [1, outcome.deployment.trustPointRegistry.toLowerCase()],
        [1, outcome.deployment.evidenceRepository.toLowerCase()],
      ]);
      expect(outcome.threadsWhileRunning).toBe(1);
      expect(outcome.threadsExited).toEqual([true]);
      expect(outcome.connectionsLeft).toEqual([]);
      expect(
        outcome.childrenWhileRunning.filter((pid) => !childrenBefore.includes(pid)).length,
      ).toBeGreaterThan(0);
      expect(childrenAfter.filter((pid) => !childrenBefore.includes(pid))).toEqual([]);
      expect(chainAfterStop).toBe('closed');
    } finally {
      await admin.knex.raw('drop database if exists ?? with (force)', [name]);
      await admin.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
