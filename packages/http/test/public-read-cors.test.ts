import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCorsOrigins, publicReadCors, type CorsOrigins } from '../src/public-read-cors.js';

let server: Server | undefined;

/** An app with one public read and one private route, listening on a real port. */
async function listening(origins: CorsOrigins): Promise<string> {
  const app = express();
  app.use(publicReadCors(['/items/:id'], origins));
  app.get('/items/:id', (_req, res) => res.json({ id: 1 }));
  app.get('/items', (_req, res) => res.json([]));
  app.post('/items/:id', (_req, res) => res.status(201).json({}));
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server?.once('listening', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

afterEach(async () => {
  await new Promise<void>((resolve) => {
    if (server === undefined) resolve();
    else
      server.close(() => {
        resolve();
      });
  });
  server = undefined;
});

const PAGE = 'https://verify.example';

describe('CORS on public reads', () => {
  it('when a page of any origin reads a public route, then the answer allows any origin and no credentials', async () => {
    const base = await listening('*');

    const response = await fetch(`${base}/items/7`, { headers: { origin: PAGE } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('when a page sends a preflight for a public read, then it is answered 204 for GET without Authorization', async () => {
    const base = await listening('*');

    const response = await fetch(`${base}/items/7`, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'content-type',
      },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD');
    expect(response.headers.get('access-control-allow-headers')).not.toMatch(/authorization/i);
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it('when a route is not a listed public read, then it carries no CORS header, preflight included', async () => {
    const base = await listening('*');

    const list = await fetch(`${base}/items`, { headers: { origin: PAGE } });
    const write = await fetch(`${base}/items/7`, { method: 'POST', headers: { origin: PAGE } });
    const deeper = await fetch(`${base}/items/7/secret`, {
      method: 'OPTIONS',
      headers: { origin: PAGE, 'access-control-request-method': 'GET' },
    });

    expect(list.headers.get('access-control-allow-origin')).toBeNull();
    expect(write.headers.get('access-control-allow-origin')).toBeNull();
    expect(deeper.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('when origins are listed, then only those are allowed, by name', async () => {
    const base = await listening([PAGE]);

    const allowed = await fetch(`${base}/items/7`, { headers: { origin: PAGE } });
    const other = await fetch(`${base}/items/7`, { headers: { origin: 'https://evil.example' } });

    expect(allowed.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(allowed.headers.get('vary')).toMatch(/origin/i);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS', () => {
  it('when unset, empty or *, then any origin', () => {
    expect(parseCorsOrigins(undefined)).toBe('*');
    expect(parseCorsOrigins(' ')).toBe('*');
    expect(parseCorsOrigins('*')).toBe('*');
  });

  it('when origins are listed with commas, then each is kept', () => {
    expect(parseCorsOrigins('https://a.example, http://127.0.0.1:5173')).toEqual([
      'https://a.example',
      'http://127.0.0.1:5173',
    ]);
  });

  it('when an entry is not an origin, then start-up stops with a message naming it', () => {
    expect(() => parseCorsOrigins('https://a.example/path')).toThrow(
      'CORS_ORIGINS: "https://a.example/path" is not an origin (write it as https://a.example)',
    );
    expect(() => parseCorsOrigins('verify.example')).toThrow('"verify.example" is not an origin');
  });
});

describe('public read paths', () => {
  it('when a path has regular expression characters, then they match only themselves', async () => {
    const app = express();
    app.use(publicReadCors(['/.well-known/jwks.json'], '*'));
    app.get('/{*rest}', (_req, res) => res.json({}));
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server?.once('listening', resolve));
    const base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

    const exact = await fetch(`${base}/.well-known/jwks.json`, { headers: { origin: PAGE } });
    const lookalike = await fetch(`${base}/x-well-known/jwksxjson`, { headers: { origin: PAGE } });

    expect(exact.headers.get('access-control-allow-origin')).toBe('*');
    expect(lookalike.headers.get('access-control-allow-origin')).toBeNull();
  });
});
