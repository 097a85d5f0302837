import { ADMIN_API_BASE_PATH, adminApiDocument } from '@trustpoint/admin';
import { testBackends } from '@trustpoint/test-database';
import {
  certificateSchema,
  createErrorCatalogue,
  ERROR_CODES,
  type ErrorBody,
} from '@trustpoint/domain';
import { SERVICE_BUSY_BODY, TOO_MANY_REQUESTS_BODY } from '@trustpoint/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certApiDocument } from '../src/openapi/cert-api-document.js';
import { CERT_API_BASE_PATH } from '../src/server.js';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { registeredRoutes } from './support/registered-routes.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: {
    in: string;
    name: string;
    required?: boolean;
    schema?: { description?: string };
  }[];
  responses: Record<string, Response>;
}
interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { required?: string[]; description?: string; properties?: object }>;
  };
}

// As the fixture serves it: with the webhook routes.
const document = certApiDocument({ webhooks: true }) as unknown as Document;

const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  METHODS.flatMap((method) => {
    const operation = item[method];
    return operation ? [{ path, method, operation }] : [];
  }),
);

/** Every `$ref` in the document, with where it was found. */
function refsOf(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsOf(item, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) =>
    key === '$ref' && typeof member === 'string'
      ? [{ at, ref: member }]
      : refsOf(member, `${at}/${key}`),
  );
}

/** Resolves a local JSON pointer (RFC 6901) in the document, or undefined. */
function resolve(pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, token) =>
        typeof node === 'object' && node !== null
          ? (node as Record<string, unknown>)[token]
          : undefined,
      document,
    );
}

/** `/certificates/{type}/{id}` and `/certificates/:lookup/:id` both become `/certificates/{}/{}`. */
function shape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z_]\w*/g, '{}');
}

describe('the certificate API document', () => {
  it('when generated, then it is OpenAPI 3.1 served under /cert/v2 with the four tags and Webhooks', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toEqual(expect.any(String));
    expect(document.info.version).toEqual(expect.any(String));
    expect(document.servers).toEqual([{ url: CERT_API_BASE_PATH }]);
    expect(document.tags.map((tag) => tag.name)).toEqual([
      'Certificate Generation',
      'Certificate Management',
      'Qualified Signature',
      'Utils',
      'Webhooks',
      'API Keys and Tokens',
      'Account',
      'Issuer Domains',
    ]);
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: expect.stringContaining('API key') as string,
      },
      clientBasic: { type: 'http', scheme: 'basic', description: expect.any(String) as string },
    });
  });

  it('when any $ref is followed, then it resolves inside the document', () => {
    const refs = refsOf(document);

    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter(({ ref }) => resolve(ref) === undefined)).toEqual([]);
  });

  it('when an operation is read, then it has a unique id, declared tags and security schemes', () => {
    const tagNames = document.tags.map((tag) => tag.name);
    const ids = operations.map(({ operation }) => operation.operationId);

    expect(new Set(ids).size).toBe(operations.length);
    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.operationId, where).toEqual(expect.any(String));
      expect(operation.tags?.length, where).toBe(1);
      expect(tagNames, where).toContain(operation.tags?.[0]);
      expect(operation.security, where).toBeDefined();
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) {
          expect(document.components.securitySchemes, where).toHaveProperty(scheme);
        }
      }
    }
  });

  it('when an operation takes a bearer token, then it names the scope it requires, in its security and its 403', () => {
    const bearerOperations = operations.filter(({ operation }) =>
      (operation.security ?? []).some((requirement) => 'bearerAuth' in requirement),
    );

    expect(bearerOperations.length).toBeGreaterThan(15);
    for (const { path, method, operation } of bearerOperations) {
      const where = `${method.toUpperCase()} ${path}`;
      const scope = (operation as { 'x-required-scope'?: string })['x-required-scope'];
      expect(['read', 'certify', 'keys', 'webhooks'], where).toContain(scope);
      for (const requirement of operation.security ?? []) {
        if ('bearerAuth' in requirement) expect(requirement.bearerAuth, where).toEqual([scope]);
      }
      const examples = operation.responses['403']?.content?.['application/json']?.examples;
      expect(examples?.insufficientScope?.value, where).toMatchObject({ statusCode: 403 });
    }
    const scopeOf = (path: string, method: (typeof METHODS)[number]) =>
      (document.paths[path]?.[method] as { 'x-required-scope'?: string })['x-required-scope'];
    expect(scopeOf('/certificates', 'post')).toBe('certify');
    expect(scopeOf('/certificates', 'get')).toBe('read');
    expect(scopeOf('/account', 'get')).toBe('read');
    expect(scopeOf('/api-keys', 'get')).toBe('keys');
  });

  it('when a path has parameters, then each operation declares exactly those, as required', () => {
    for (const { path, method, operation } of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');

      expect(declared.map((parameter) => parameter.name).sort(), `${method} ${path}`).toEqual(
        inPath.sort(),
      );
      expect(declared.every((parameter) => parameter.required === true)).toBe(true);
    }
  });

  it('when an operation is read, then it names its error responses with the error body and catalogue messages', () => {
    const catalogue = createErrorCatalogue();
    const knownBodies: ErrorBody[] = [
      ...ERROR_CODES.map((code) => catalogue[code]),
      TOO_MANY_REQUESTS_BODY,
      SERVICE_BUSY_BODY,
    ];

    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const errorStatuses = Object.keys(operation.responses).filter((status) => status >= '400');

      expect(errorStatuses, where).toEqual(expect.arrayContaining(['429', '500']));
      for (const status of errorStatuses) {
        const json = operation.responses[status]?.content?.['application/json'];
        const examples = Object.values(json?.examples ?? {}).map(
          (example) => example.value as ErrorBody,
        );
        // An unsatisfiable range of a published file is HTTP's own answer: Content-Range, no body.
        if (path === '/files/{fileHash}' && status === '416') {
          expect(json, `${where} ${status}`).toBeUndefined();
          continue;
        }
        // The OAuth token endpoint answers its own errors as RFC 6749 5.2 requires, except a 400
        // for a request the APIs cannot read at all, refused before the endpoint.
        if (path === '/oauth/token' && (status === '400' || status === '401')) {
          const oauthError = { $ref: '#/components/schemas/OAuthError' };
          expect(json?.schema, `${where} ${status}`).toEqual(
            status === '400'
              ? { anyOf: [oauthError, { $ref: '#/components/schemas/ErrorBody' }] }
              : oauthError,
          );
          continue;
        }

        expect(json?.schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
        expect(examples.length, `${where} ${status}`).toBeGreaterThan(0);
        for (const example of examples) {
          expect(example.statusCode, `${where} ${status}`).toBe(Number(status));
          expect(knownBodies, `${where} ${status}`).toContainEqual({
            statusCode: example.statusCode,
            type: example.type,
            message: example.message,
          });
        }
      }
    }
  });

  it('when certificates are created, then every status of the spec is documented, and 202 for a pending one', () => {
    const responses = document.paths['/certificates']?.post?.responses ?? {};

    expect(Object.keys(responses)).toEqual([
      '201',
      '202',
      '400',
      '401',
      '403',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
  });

  it('when an operation creates or changes, then it documents Idempotency-Key, its 409 with Retry-After and its 422', () => {
    const changing = Object.entries(document.paths).flatMap(([path, item]) =>
      (['post', 'patch'] as const).flatMap((method) => {
        const operation = item[method];
        // The token endpoint exchanges credentials, a redelivery reschedules an event, a posted
        // verification stores nothing, claiming a domain again answers the same claim and a
        // domain check records what the DNS says now: none makes anything a retry could make twice.
        const repeatable =
          path === '/oauth/token' ||
          path.endsWith('/redeliver') ||
          path === '/trustpoints/verification' ||
          path.startsWith('/issuer-domains');
        return operation === undefined || repeatable ? [] : [{ path, operation }];
      }),
    );

    expect(changing.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['/certificates', '/api-keys', '/webhooks/endpoints']),
    );
    for (const { path, operation } of changing) {
      const header = operation.parameters?.find(
        (parameter) => parameter.name === 'idempotency-key' && parameter.in === 'header',
      );
      expect(header, path).toBeDefined();
      expect(operation.responses['409']?.headers, path).toHaveProperty('Retry-After');
      expect(operation.responses['422'], path).toBeDefined();
    }
  });

  it('when a user who is not qualified asks for a signature, then the 403 is documented', () => {
    const forbidden = document.paths['/certificates/{type}/{id}/signature']?.post?.responses['403'];
    const messages = Object.values(forbidden?.content?.['application/json']?.examples ?? {}).map(
      (example) => (example.value as ErrorBody).message,
    );

    expect(messages).toContain('User is not qualified, please try again with a qualified user');
  });

  it('when certificates are listed, then the items are described as projected by `fields`', () => {
    // Arrange
    const { schemas } = document.components;
    const list = document.paths['/certificates']?.get;

    // Act
    const fieldsParameter = list?.parameters?.find((parameter) => parameter.name === 'fields');

    // Assert: with `fields`, any member may be missing, so none is required.
    expect(schemas.CertificateList?.properties).toMatchObject({
      certificates: { items: { $ref: '#/components/schemas/CertificateFields' } },
    });
    for (const name of ['CertificateFields', 'CertificateDataFields', 'CertificateAccessFields']) {
      expect(schemas[name], name).toBeDefined();
      expect(schemas[name]?.required, name).toBeUndefined();
    }
    expect(schemas.CertificateFields?.description).toContain(
      'Without `fields`, a whole Certificate',
    );
    expect(fieldsParameter).toMatchObject({
      schema: { description: expect.stringContaining('data.name') },
    });
  });

  it('when the support contact is configured, then the messages of the document name it', () => {
    const configured = JSON.stringify(certApiDocument({ supportContact: 'ops@example.org' }));

    expect(configured).toContain('Please, contact ops@example.org to increase the limit');
    expect(configured).not.toContain('the support team');
  });

  it('when the Certificate example is read, then the Certificate schema accepts it unchanged', () => {
    const example: unknown = certificateSchema.meta()?.example;

    expect(certificateSchema.parse(example)).toEqual(example);
  });
});

describe.each(testBackends())('the certificate API and its document on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  it('when the routes of the app are listed, then each is documented with its method, and only those', () => {
    // Arrange: the documentation's own routes are not operations of the API, nor the web
    // verifier's files naming a local instance's nodes and the public endpoints to its own page.
    const docsRoutes = [
      'get /cert/v2/openapi.json',
      'get /cert/v2/docs',
      'get /cert/v2/verify/local-nodes.json',
      'get /cert/v2/verify/public-endpoints.json',
    ];

    // Act
    const registered = registeredRoutes(api.app)
      .filter(({ path }) => path.startsWith(`${CERT_API_BASE_PATH}/`))
      .map(({ method, path }) => `${method} ${shape(path)}`)
      .filter((route) => !docsRoutes.includes(route));
    const documented = operations.map(
      ({ method, path }) => `${method} ${shape(CERT_API_BASE_PATH + path)}`,
    );

    // Assert
    expect(registered.sort()).toEqual([...new Set(registered)].sort());
    expect(registered.sort()).toEqual(documented.sort());
  });

  it('when the admin API mounted beside it is listed, then its routes are exactly those of its document', () => {
    // Arrange
    const adminDocument = adminApiDocument() as unknown as Document;
    const docsRoutes = [
      `get ${ADMIN_API_BASE_PATH}/openapi.json`,
      `get ${ADMIN_API_BASE_PATH}/docs`,
    ];

    // Act
    const registered = registeredRoutes(api.app)
      .filter(({ path }) => !path.startsWith(`${CERT_API_BASE_PATH}/`))
      .map(({ method, path }) => `${method} ${shape(path)}`)
      .filter((route) => !docsRoutes.includes(route));
    const documented = Object.entries(adminDocument.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map(
        (method) => `${method} ${shape(ADMIN_API_BASE_PATH + path)}`,
      ),
    );

    // Assert
    expect(registered.sort()).toEqual(documented.sort());
  });

  it('when the document is requested without a token, then the app serves the same document', async () => {
    // Act
    const response = await request(api.app).get('/cert/v2/openapi.json');
    const apiResponse = await request(api.app).get('/cert/v2/certificates');

    // Assert
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toEqual(JSON.parse(JSON.stringify(certApiDocument({ webhooks: true }))));
    // Not counted by the per-user rate limit, which sets this header on the API's answers.
    expect(apiResponse.headers.ratelimit).toBeDefined();
    expect(response.headers.ratelimit).toBeUndefined();
  });

  it('when the page is opened with a bad token, then it and its assets load all the same', async () => {
    // Arrange
    const badToken = { Authorization: 'Bearer not-a-token' };

    // Act
    const page = await request(api.app).get('/cert/v2/docs/').set(badToken);
    const assets = [...page.text.matchAll(/(?:src|href)=["'](\.\/[^"']+)["']/g)].map(
      ([, asset]) => new URL(asset ?? '', 'http://localhost/cert/v2/docs/').pathname,
    );
    const loaded = await Promise.all(
      assets.map(async (path) => {
        const response = await request(api.app).get(path).set(badToken);
        return { path, status: response.status, type: response.headers['content-type'] };
      }),
    );

    // Assert
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-eval');
    expect(assets).toEqual(
      expect.arrayContaining([
        '/cert/v2/docs/swagger-ui.css',
        '/cert/v2/docs/swagger-ui-bundle.js',
        '/cert/v2/docs/swagger-ui-init.js',
      ]),
    );
    for (const asset of loaded) {
      expect(asset.status, asset.path).toBe(200);
      const extension = asset.path.slice(asset.path.lastIndexOf('.'));
      const expected = { '.js': /javascript/, '.css': /^text\/css/, '.png': /^image\/png/ }[
        extension
      ];
      expect(asset.type, asset.path).toMatch(expected ?? /^$/);
    }
  });

  it('when a certificate is read, then the documented Certificate schema describes it exactly', async () => {
    // Arrange
    const owner = await api.user();
    const created = await api.certify(owner.token, { externalId: 'openapi-1' });

    // Act
    const response = await request(api.app)
      .get(`/cert/v2/certificates/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);

    // Assert: parsing strips unknown members, so an undocumented one would show as a difference.
    expect(response.status).toBe(200);
    expect(certificateSchema.parse(response.body.data)).toEqual(response.body.data);
  });
});
