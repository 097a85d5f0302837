import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApiServer } from '../src/api-server.js';
import { requestTarget } from '../src/request-target.js';
import { trickleRequest } from '@trustpoint/test-doubles/slow-client';
import { testApp } from './support/test-app.js';

function appWithTarget(checked = true) {
  return testApp((app) => {
    if (checked) app.use(requestTarget);
    app.get('/items/:id', (req, res) => {
      res.json({ id: req.params.id, query: req.query });
    });
  });
}

describe('requestTarget', () => {
  it.each([
    ['a malformed percent-encoding in a parameter', '/items/%E0%A4%A', 'path'],
    ['an encoded invalid UTF-8 byte', '/items/%FF', 'path'],
    ['an encoded lone surrogate', '/items/%ED%A0%80', 'path'],
    ['a malformed percent-encoding on an unknown path', '/nothing/%E0%A4%A', 'path'],
    ['U+0000 in a query value', '/items/1?externalId=a%00b', 'query.externalId'],
    ['U+0000 in a repeated query value', '/items/1?x=ok&x=%00', 'query.x'],
  ])('when the target holds %s (%s), then 400 names %s', async (_case, target, field) => {
    const response = await request(appWithTarget()).get(target);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
    expect(response.body).toMatchObject({
      errors: [{ field, error: expect.any(String) as string }],
    });
  });

  it('when a path parameter holds U+0000, then the route gets it to refuse by name (validate: path.<name>)', async () => {
    const response = await request(appWithTarget()).get('/items/a%00b');

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'a\u0000b' });
  });

  it('when the target is well formed, then the route gets decoded text, astral characters too', async () => {
    const response = await request(appWithTarget()).get('/items/%F0%9F%98%80%20x?q=%C3%B1');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: '\u{1F600} x', query: { q: 'ñ' } });
  });

  it('when no check runs and the router cannot decode a parameter, then the error handler answers 400', async () => {
    const response = await request(appWithTarget(false)).get('/items/%E0%A4%A');

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errors: [{ field: 'path', error: expect.any(String) as string }],
    });
  });

  it('when a request carries two Authorization headers, then 400 names the header; one is served', async () => {
    // Arrange: a raw request, since clients fold a header named twice into one.
    const server = createApiServer(appWithTarget());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    // Act
    const answer = await trickleRequest(port, '', {
      sentAtOnce:
        'GET /items/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer first\r\n' +
        'authorization: Bearer second\r\nConnection: close\r\n\r\n',
      byteIntervalMs: 10,
      giveUpMs: 5_000,
    });
    await new Promise((resolve) => server.close(resolve));
    const one = await request(appWithTarget()).get('/items/1').set('Authorization', 'Bearer only');

    // Assert
    const [head = '', body = ''] = answer.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({
      errors: [
        { field: 'headers.authorization', error: 'Send one Authorization header, not more' },
      ],
    });
    expect(one.status).toBe(200);
  });

  it('when an HTTP/1.1 request has no Host, then 400 names the header', async () => {
    // Arrange: the API server lets requests without Host through to the app (requireHostHeader).
    const server = createApiServer(appWithTarget());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    // Act
    const answer = await trickleRequest(port, '', {
      sentAtOnce: 'GET /items/1 HTTP/1.1\r\nConnection: close\r\n\r\n',
      byteIntervalMs: 10,
      giveUpMs: 5_000,
    });
    await new Promise((resolve) => server.close(resolve));

    // Assert
    const [head = '', body = ''] = answer.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(body)).toMatchObject({
      statusCode: 400,
      type: 'Validation Error',
      errors: [{ field: 'headers.host', error: 'Required in HTTP/1.1' }],
    });
  });
});
