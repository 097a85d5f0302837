import { randomBytes } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '@trustpoint/http';
import { databaseDigest } from '@trustpoint/test-database';
import { trickleRequest } from '@trustpoint/test-doubles/slow-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CertApiFixture } from '../support/cert-api-fixture.js';
import { request } from '../support/checked-request.js';
import { SITE_ADDRESS, type SecurityApi } from './shared-api.js';

// Limits on what a client may send and on what the service fetches. Covered beside their code:
// files over MAX_FILE_BYTES, a body part over its limit and a second file or body part
// (create-file-certificate.test.ts: 413 and 400, nothing spent, nothing left), JSON bodies over
// the limit in @trustpoint/http (json-body.test.ts), wrong-PIN guessing (pin-attempts.test.ts: 429
// per certificate and per address), URL sizes, timeouts and redirect loops
// (create-url-certificate.test.ts).

const BASE = '/cert/v2';

/** A server on every local address that counts the requests it receives (none must arrive). */
async function startRecorder() {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    res.end('secret');
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () => closeServer(server),
  };
}

/** The allowed site: every path redirects to the URL in its query. */
async function startRedirectingSite() {
  const server = http.createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://site').searchParams.get('to') ?? '/';
    res.writeHead(302, { Location: to });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, SITE_ADDRESS, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectTo: (target: string) =>
      `http://${SITE_ADDRESS}:${String(port)}/go?to=${encodeURIComponent(target)}`,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}

/** Limits on what clients send and on what URL certificates fetch. */
export function limitsSuite(shared: () => SecurityApi): void {
  describe('limits', () => {
    let api: CertApiFixture;
    let token: string;
    let recorder: Awaited<ReturnType<typeof startRecorder>>;
    let site: Awaited<ReturnType<typeof startRedirectingSite>>;

    beforeAll(async () => {
      recorder = await startRecorder();
      site = await startRedirectingSite();
      ({ api } = shared());
      ({ token } = await api.user({ credits: 100 }));
    });
    afterAll(async () => {
      await recorder.close();
      await site.close();
    });

    /** Sends, then checks the spec's error body and that the database did not change. */
    async function refused(send: () => PromiseLike<import('supertest').Response>, status: number) {
      const before = await databaseDigest(api.db.knex);
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, type: expect.any(String) });
      expect(await databaseDigest(api.db.knex)).toBe(before);
      return response;
    }

    describe('URL certificates to private and tricky addresses', () => {
      const loopback = (host: string) => () => `http://${host}:${String(recorder.port)}/secret`;
      it.each([
        ['decimal 2130706433', loopback('2130706433')],
        ['hex 0x7f000001', loopback('0x7f000001')],
        ['octal 0177.0.0.1', loopback('0177.0.0.1')],
        ['short 127.1', loopback('127.1')],
        ['0', loopback('0')],
        ['IPv6 [::1]', loopback('[::1]')],
        ['IPv6-mapped [::ffff:127.0.0.1]', loopback('[::ffff:127.0.0.1]')],
        ['IPv6-mapped in hex [::ffff:7f00:1]', loopback('[::ffff:7f00:1]')],
        ['IPv4-compatible [::127.0.0.1]', loopback('[::127.0.0.1]')],
        [
          'IPv4-compatible [::169.254.169.254]',
          () => 'http://[::169.254.169.254]/latest/meta-data/',
        ],
        ['the name localhost', loopback('localhost')],
        ['link-local 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
        ['unique-local [fc00::1]', () => 'http://[fc00::1]/'],
        ['unique-local [fd12:3456::1]', () => 'http://[fd12:3456::1]/'],
        ['private 192.168.1.1', () => 'http://192.168.1.1/'],
        [
          'an allowed site redirecting to 127.0.0.1',
          () => site.redirectTo(loopback('127.0.0.1')()),
        ],
        ['an allowed site redirecting to [::1]', () => site.redirectTo(loopback('[::1]')())],
        [
          'an allowed site redirecting to [::127.0.0.1]',
          () => site.redirectTo(loopback('[::127.0.0.1]')()),
        ],
        [
          'an allowed site redirecting to 2130706433',
          () => site.redirectTo(loopback('2130706433')()),
        ],
        [
          'an allowed site redirecting to the metadata address',
          () => site.redirectTo('http://169.254.169.254/'),
        ],
      ])(
        'when the URL is %s, then 400 on body.url, nothing fetched and nothing changed',
        async (_case, url) => {
          // Arrange
          const hitsBefore = recorder.hits();

          // Act
          const response = await refused(
            () =>
              request(api.app)
                .post(`${BASE}/certificates?type=url&networkId=31337`)
                .set('Authorization', `Bearer ${token}`)
                .send({ name: 'Page', description: '', url: url() }),
            400,
          );

          // Assert
          expect(response.body.errors).toEqual([
            { field: 'body.url', error: expect.stringMatching(/non-public address/) },
          ]);
          expect(recorder.hits()).toBe(hitsBefore);
        },
      );

      it('when the allowed site redirects to itself, then it is fetched (the control)', async () => {
        // Act
        const response = await request(api.app)
          .post(`${BASE}/certificates?type=url&networkId=31337`)
          .set('Authorization', `Bearer ${token}`)
          .send({ name: 'Page', description: '', url: site.redirectTo('/here') });

        // Assert: the site redirects forever, so the fetch ends at the redirect limit, not the guard.
        expect(response.status).toBe(400);
        expect(response.body.errors).toEqual([
          { field: 'body.url', error: expect.stringMatching(/redirects more than/) },
        ]);
      });
    });

    describe('bodies', () => {
      it('when a JSON body is over 1 MiB, then 413 and nothing changes', async () => {
        await refused(
          () =>
            request(api.app)
              .post(`${BASE}/certificates?type=content&networkId=31337`)
              .set('Authorization', `Bearer ${token}`)
              .set('Content-Type', 'application/json')
              .send(
                JSON.stringify({
                  name: 'Big',
                  description: '',
                  content: { x: 'x'.repeat(1_100_000) },
                }),
              ),
          413,
        );
      });

      it('when a multipart upload has many parts, then 400 names the limit and nothing changes', async () => {
        // Arrange
        const call = request(api.app)
          .post(`${BASE}/certificates?type=file&networkId=31337`)
          .set('Authorization', `Bearer ${token}`);
        for (let i = 0; i < 200; i += 1) void call.field(`part${String(i)}`, 'x');
        void call.attach('fileInput', randomBytes(16), 'f.bin');

        // Act
        const response = await refused(() => call, 400);

        // Assert
        expect(JSON.stringify(response.body.errors)).toMatch(/part/i);
      });
    });

    describe('slow clients', () => {
      let server: Server;
      let port: number;
      beforeAll(async () => {
        server = createApiServer(api.app, {
          headersTimeoutMs: 800,
          requestTimeoutMs: 1_500,
          checkIntervalMs: 100,
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
      });
      afterAll(async () => {
        await closeServer(server);
      });

      it('when clients trickle their headers and an upload, then each gets 408 and others are served meanwhile', async () => {
        // Arrange
        const headers = `POST ${BASE}/certificates?type=file&networkId=31337 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n`;
        const before = await databaseDigest(api.db.knex);

        // Act
        const slow = [
          ...Array.from({ length: 5 }, () =>
            trickleRequest(port, headers, { byteIntervalMs: 50, giveUpMs: 10_000 }),
          ),
          ...Array.from({ length: 5 }, () =>
            trickleRequest(
              port,
              '--b\r\nContent-Disposition: form-data; name="fileInput"; filename="f"\r\n\r\n'.padEnd(
                2_000,
                'x',
              ),
              {
                sentAtOnce: headers,
                byteIntervalMs: 50,
                giveUpMs: 10_000,
              },
            ),
          ),
        ];
        const startedAt = Date.now();
        const served = await fetch(`http://127.0.0.1:${String(port)}${BASE}/networks`);
        const servedMs = Date.now() - startedAt;
        const results = await Promise.all(slow);

        // Assert
        expect(served.status).toBe(200);
        // Served while the slow clients still held their connections: a fixed bound in ms would
        // measure the machine's load, not the server.
        expect(servedMs).toBeLessThan(Math.min(...results.map((result) => result.closedAfterMs)));
        for (const result of results) {
          expect(result.closedAfterMs).toBeLessThan(4_000);
          // Node's 408, unless the socket was destroyed before the answer was flushed (a busy
          // machine): the client is cut off either way.
          expect(result.received).toMatch(/^(HTTP\/1\.1 408 |$)/);
        }
        expect(results.filter((result) => result.received !== '').length).toBeGreaterThan(0);
        expect(await databaseDigest(api.db.knex)).toBe(before);
      });
    });
  });
}
