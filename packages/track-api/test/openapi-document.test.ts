import {
  IdempotencyKeys,
  networksRouter,
  type AnswerSealer,
  type AuthenticateOptions,
} from '@trustpoint/http';
import pino from 'pino';
import {
  accountRouter,
  apiKeysRouter,
  Identities,
  tokenEndpointRouter,
} from '@trustpoint/identity';
import { webhooksRouter, type WebhookSettings } from '@trustpoint/webhooks';
import type { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackServices } from '../src/assets/track-services.js';
import { trackApiDocument } from '../src/openapi/track-api-document.js';
import { assetsRouter } from '../src/routes/assets-router.js';
import { evidencesRouter } from '../src/routes/evidences-router.js';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** `METHOD /path/{param}` of every route a router serves, as the document spells paths. */
function routesOf(router: Router): string[] {
  return (router.stack as RouteLayer[]).flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map(
          (method) =>
            `${method.toUpperCase()} ${layer.route?.path.replace(/:(\w+)/g, '{$1}') ?? ''}`,
        )
      : [],
  );
}

function documentedRoutes(document: { paths?: Record<string, object> }): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document', () => {
  it('when compared with the routers, then every route the app serves is documented, and nothing else', () => {
    // Arrange: the routers only register handlers; nothing is called on these stand-ins.
    const services = {} as TrackServices;
    const auth = {} as AuthenticateOptions;
    const served = [
      ...routesOf(
        assetsRouter(
          services,
          auth,
          new IdempotencyKeys({
            knex: services.knex,
            logger: pino({ level: 'silent' }),
            sealer: {} as AnswerSealer,
          }),
        ),
      ),
      ...routesOf(evidencesRouter(services, auth)),
      ...routesOf(networksRouter(() => [])),
      ...routesOf(webhooksRouter(services.knex, {} as WebhookSettings, auth)),
      // identityRouter's two routers, as it mounts them.
      ...routesOf(
        apiKeysRouter({
          knex: services.knex,
          guard: (_req, _res, next) => {
            next();
          },
          owner: () => '',
          actor: () => '',
        }),
      ),
      ...routesOf(
        tokenEndpointRouter({
          identities: new Identities({ knex: services.knex, jwtSecret: 'unused' }),
        }),
      ),
      ...routesOf(accountRouter({ knex: services.knex, auth })),
    ];

    // Act
    const documented = documentedRoutes(trackApiDocument({ webhooks: true }));

    // Assert
    expect(served.length).toBeGreaterThanOrEqual(8);
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('when generated, then it is OpenAPI 3.1 with bearer security on every operation but the list of networks, and the catalogue messages as examples', () => {
    // Act
    const document = trackApiDocument({ supportContact: 'help@example.org' });

    // Assert
    expect(document.openapi).toBe('3.1.0');
    expect(document.components?.securitySchemes).toEqual({
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: expect.stringContaining('API key') as string,
      },
      clientBasic: { type: 'http', scheme: 'basic', description: expect.any(String) as string },
    });
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(
        item as Record<string, { operationId?: string; security?: unknown; responses: object }>,
      ),
    );
    // Every operation with a token names the scope it requires, in its security and its 403.
    const scopes: Record<string, string> = {
      createAsset: 'track',
      addEvidence: 'track',
      shareAsset: 'track',
      unshareAsset: 'track',
      listAssets: 'read',
      getAsset: 'read',
      listAssetShares: 'read',
      verifyEvidence: 'read',
      getAccount: 'read',
      listAccountCreditMovements: 'read',
    };
    for (const operation of operations) {
      const security: Record<string, unknown> = {
        listNetworks: [],
        issueClientCredentialsToken: [{ clientBasic: [] }, {}],
      };
      const id = operation.operationId ?? '';
      const scope =
        scopes[id] ??
        (/ApiKey/.test(id) ? 'keys' : /Webhook|Redeliver|Deliver/.test(id) ? 'webhooks' : '');
      expect(operation.security, id).toEqual(security[id] ?? [{ bearerAuth: [scope] }]);
      if (security[id] === undefined) {
        expect((operation as { 'x-required-scope'?: string })['x-required-scope'], id).toBe(scope);
        expect(JSON.stringify(operation.responses), id).toContain('"insufficientScope"');
      }
    }
    const create = JSON.stringify(document.paths?.['/assets']?.post?.responses);
    expect(create).toContain('The provided assetId is already registered');
    expect(create).toContain('contact help@example.org to increase the limit');
    expect(Object.keys(document.components?.schemas ?? {})).toEqual(
      expect.arrayContaining(['ErrorBody', 'AssetShares', 'EvidencesVerification']),
    );
  });

  it('when assets are listed, then the items are described as projected by `fields`', () => {
    // Act
    const document = trackApiDocument();
    const schemas = document.components?.schemas ?? {};

    // Assert: with `fields`, any member may be missing, so none is required.
    expect(schemas.AssetList).toMatchObject({
      properties: { assets: { items: { $ref: '#/components/schemas/AssetFields' } } },
    });
    expect(schemas.AssetFields).toMatchObject({ description: expect.stringContaining('fields') });
    expect(schemas.AssetFields).not.toHaveProperty('required');
  });
});

describe('the served documentation', () => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi('pglite');
  });

  afterAll(async () => {
    await api.close();
  });

  it('when anyone asks, then /openapi.json and the interactive /docs page are served without a token', async () => {
    // Act
    const json = await request(api.app).get(`${BASE}/openapi.json`);
    const page = await request(api.app).get(`${BASE}/docs/`);

    // Assert
    expect(json.status).toBe(200);
    // As the fixture serves it: with the webhook routes.
    expect(json.body).toEqual(JSON.parse(JSON.stringify(trackApiDocument({ webhooks: true }))));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Trustpoint asset-tracking API');
  });
});
