import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';

// Over HTTP, as a client sees it: a creation answered 5xx (its network unreachable) gives its
// Idempotency-Key up, and the client's retry with the same key, once the network is back, creates.
describe('an Idempotency-Key after a 5xx, over HTTP', () => {
  let api: CertApiFixture;
  let rpcPort: number;
  let base: string;
  let server: ReturnType<CertApiFixture['app']['listen']>;
  let proxy: net.Server | undefined;

  beforeAll(async () => {
    rpcPort = await freePort();
    // The network's node is reached through a port nothing listens on until the test opens it.
    api = await startCertApi('pglite', {
      anchorTimeoutMs: 2_000,
      rpcUrl: `http://127.0.0.1:${String(rpcPort)}`,
    });
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as net.AddressInfo).port)}`;
  });

  afterAll(async () => {
    proxy?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  /** Opens the node's port: a TCP relay to the local chain. */
  const networkBack = async () => {
    const chain = new URL(api.chain.url);
    proxy = net.createServer((client) => {
      const upstream = net.connect(Number(chain.port), chain.hostname);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end);
      upstream.on('error', end);
    });
    await new Promise<void>((resolve) => proxy?.listen(rpcPort, '127.0.0.1', resolve));
  };

  it('when the first request is answered 503, then a retry with the same key runs again and creates, once, spending one credit', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 3 });
    const key = randomUUID();
    const body = JSON.stringify({ name: 'Retried', description: '', content: { n: randomUUID() } });
    const send = () =>
      fetch(`${base}/cert/v2/certificates?type=content&networkId=31337`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
          Prefer: 'wait=20',
        },
        body,
      });
    const failed = await send();
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { type: string }).type).toBe('Service Unavailable Error');

    // Act
    await networkBack();
    const retry = await send();
    const replay = await send();

    // Assert
    const created = (await retry.json()) as { data: { certID: string; status: string } };
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(created.data.status).toBe('anchored');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as typeof created).data.certID).toBe(created.data.certID);
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
    expect(
      await api.db
        .knex('certificates')
        .where({ user_id: id })
        .count<{ count: number }[]>('* as count'),
    ).toEqual([{ count: 1 }]);
  });
});
