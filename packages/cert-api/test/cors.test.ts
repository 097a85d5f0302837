// CORS over real HTTP: public reads answer pages of any origin, nothing else does.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';

const PAGE = 'https://verify.example';

describe.each(testBackends())('CORS on %s', (backend) => {
  let api: CertApiFixture;
  let server: Server;
  let base: string;
  let token: string;

  beforeAll(async () => {
    api = await startCertApi(backend);
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/cert/v2`;
    ({ token } = await api.user());
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
    await api.close();
  });

  const preflight = (path: string, method = 'GET', headers = 'content-type') =>
    fetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });
  const allowedOrigin = (response: Response) => response.headers.get('access-control-allow-origin');

  it('when a page reads a public certificate, its trustpoints, the networks and the key set, then each answer allows any origin', async () => {
    const { certID } = await api.certify(token, { public: true });
    const id = encodeURIComponent(certID);

    const answers = await Promise.all(
      [
        `/certificates/certID/${id}`,
        `/trustpoints/certID/${id}`,
        '/networks',
        '/.well-known/jwks.json',
      ].map((path) => fetch(`${base}${path}`, { headers: { origin: PAGE } })),
    );

    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map(allowedOrigin)).toEqual(['*', '*', '*', '*']);
    expect(answers[0]?.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('when a certificate is not found, then the error body is readable by the page too', async () => {
    const response = await fetch(`${base}/certificates/certID/did:trustpoint:certid:unknown`, {
      headers: { origin: PAGE },
    });

    expect(response.status).toBe(404);
    expect(allowedOrigin(response)).toBe('*');
  });

  it('when a page sends a preflight for a public read, then it may GET, but not with a token', async () => {
    const response = await preflight('/certificates/certID/any');

    expect(response.status).toBe(204);
    expect(allowedOrigin(response)).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD');
    expect(response.headers.get('access-control-allow-headers')).not.toMatch(/authorization/i);
  });

  it('when a page tries a private route (create, list, revoke), then no CORS header is given', async () => {
    const create = await preflight('/certificates', 'POST', 'authorization,content-type');
    const list = await fetch(`${base}/certificates`, {
      headers: { origin: PAGE, authorization: `Bearer ${token}` },
    });
    const revoke = await preflight('/certificates/certID/any/revoke', 'PATCH', 'authorization');

    expect(allowedOrigin(create)).toBeNull();
    expect(list.status).toBe(200);
    expect(allowedOrigin(list)).toBeNull();
    expect(allowedOrigin(revoke)).toBeNull();
  });
});
