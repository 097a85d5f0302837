import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { run } from '../src/program.js';

interface Answer {
  status: number;
  type: string;
  body: string;
}

/**
 * A stand-in for the admin API on a real local port: it records each request and answers what the
 * test sets, so the client's requests and its reading of odd answers can be seen.
 */
let server: Server;
let url: string;
let requests: IncomingMessage[] = [];
let next: Answer = { status: 200, type: 'application/json', body: '{}' };

async function trustpoint(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(['admin', ...argv, '--url', url], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TRUSTPOINT_TOKEN: 'the-admin-token' },
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(request);
    response.writeHead(next.status, { 'Content-Type': next.type }).end(next.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the admin client, typed from the admin API document', () => {
  it('when the audit log is read with --token, then the query holds the filters only and the token goes in the Authorization header', async () => {
    // Arrange
    requests = [];
    const page = { entries: [], pagination: { offset: 0, limit: 50, total: 0 } };
    next = { status: 200, type: 'application/json', body: JSON.stringify({ data: page }) };

    // Act
    const result = await trustpoint([
      'audit',
      '--token',
      'a-token-given-on-the-command-line',
      '--action',
      'user.create',
      '--target',
      'user:alice/1',
      '--json',
    ]);

    // Assert
    expect(result.stderr).toBe('');
    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toEqual(page);
    expect(requests.map((request) => `${request.method ?? ''} ${request.url ?? ''}`)).toEqual([
      'GET /admin/v1/audit?action=user.create&target=user%3Aalice%2F1',
    ]);
    expect(requests[0]?.headers.authorization).toBe('Bearer a-token-given-on-the-command-line');
  });

  it('when a user id holds a slash, then it stays one path segment', async () => {
    // Arrange
    requests = [];
    next = { status: 404, type: 'application/json', body: '{"statusCode":404}' };

    // Act
    const result = await trustpoint(['users', 'show', '../plans']);

    // Assert
    expect(result.code).toBe(EXIT.notFound);
    expect(requests[0]?.url).toBe('/admin/v1/users/..%2Fplans');
  });

  it('when the service refuses a body, then the message names each field and --json prints its error body', async () => {
    // Arrange
    const refusal = {
      statusCode: 400,
      type: 'Validation Error',
      message: 'Request parameters are wrong, check requirements',
      errors: [{ field: 'body.planId', error: 'No such plan' }],
    };
    next = { status: 400, type: 'application/json', body: JSON.stringify(refusal) };

    // Act
    const text = await trustpoint(['users', 'create', 'bob', '--name', 'Bob', '--plan', 'none']);
    const json = await trustpoint([
      'users',
      'create',
      'bob',
      '--name',
      'Bob',
      '--plan',
      'x',
      '--json',
    ]);

    // Assert
    expect(text.code).toBe(EXIT.usage);
    expect(text.stderr).toContain(
      'Request parameters are wrong, check requirements (body.planId: No such plan)',
    );
    expect(json.code).toBe(EXIT.usage);
    expect(JSON.parse(json.stderr)).toEqual({
      error: 'Request parameters are wrong, check requirements (body.planId: No such plan)',
      body: refusal,
    });
  });

  it('when something else answers at --url (a web page), then it fails saying the answer held no data', async () => {
    // Arrange
    next = { status: 200, type: 'text/html', body: '<!doctype html><title>Welcome</title>' };

    // Act
    const result = await trustpoint(['plans', 'list']);

    // Assert
    expect(result.code).toBe(EXIT.failure);
    expect(result.stderr).toContain('with no data (is --url the certificate API?)');
  });
});
