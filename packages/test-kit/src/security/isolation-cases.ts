import type { RequestListener } from 'node:http';
import type { Queryable } from '@trustpoint/db';
import supertest from 'supertest';

import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';

/** A user of the API under test. */
export interface Party {
  id: string;
  token: string;
}

/** What every isolation case is given: the API, the owner of the records, another user. */
export interface IsolationWorld {
  /** supertest's `request`, checked against the API's document (`checkedRequest`). */
  request: (app: RequestListener) => supertest.Agent;
  app: RequestListener;
  /** Where the API is mounted, e.g. `/cert/v2`. */
  basePath: string;
  owner: Party;
  other: Party;
  /** A digest of the callers' state in the database, equal when nothing changed. */
  digest(): Promise<string>;
  /**
   * The id of a webhook event of the owner delivered to `endpointId`, made by the API's own
   * records (a certificate or an asset anchored while the endpoint exists).
   */
  ownerEvent(endpointId: string): Promise<string>;
}

/** One or more requests against one documented operation, with their assertions. */
export interface IsolationCase<World extends IsolationWorld = IsolationWorld> {
  /** `METHOD /path` as the OpenAPI document names it, e.g. `GET /api-keys/{keyId}`. */
  operation: string;
  name: string;
  run(world: World): Promise<void>;
}

/** Every operation of a served OpenAPI document, as `METHOD /path`. */
export function documentedOperations(document: OpenApiDocument): string[] {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    methods
      .filter((method) => (item as Record<string, unknown> | undefined)?.[method] !== undefined)
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Fails unless the request answers `status` with the spec's error body and nothing changed. */
export async function expectRefusedAndUnchanged(
  world: IsolationWorld,
  status: number,
  send: () => PromiseLike<supertest.Response>,
): Promise<supertest.Response> {
  const before = await world.digest();
  const response = await send();
  if (response.status !== status) {
    throw new Error(
      `expected ${String(status)}, got ${String(response.status)} ${JSON.stringify(response.body)}`,
    );
  }
  const body = response.body as { statusCode?: unknown; type?: unknown; message?: unknown };
  if (
    body.statusCode !== status ||
    typeof body.type !== 'string' ||
    typeof body.message !== 'string'
  ) {
    throw new Error(`not the spec's error body: ${JSON.stringify(response.body)}`);
  }
  const after = await world.digest();
  if (after !== before)
    throw new Error(`the refused request changed the database:\n${before}\n${after}`);
  return response;
}

const bearer = (party: Party) => `Bearer ${party.token}`;

async function created<T>(response: PromiseLike<supertest.Response>, what: string): Promise<T> {
  const answer = await response;
  if (answer.status !== 201) {
    throw new Error(
      `${what}: expected 201, got ${String(answer.status)} ${JSON.stringify(answer.body)}`,
    );
  }
  return (answer.body as { data: T }).data;
}

function ownerEndpoint(world: IsolationWorld): Promise<{ id: string }> {
  return created(
    world
      .request(world.app)
      .post(`${world.basePath}/webhooks/endpoints`)
      .set('Authorization', bearer(world.owner))
      .send({ url: 'http://127.0.0.1:9/hooks' }),
    'POST /webhooks/endpoints',
  );
}

function ownerApiKey(world: IsolationWorld): Promise<{ id: string; key: string }> {
  return created(
    world
      .request(world.app)
      .post(`${world.basePath}/api-keys`)
      .set('Authorization', bearer(world.owner))
      .send({ name: 'owner key' }),
    'POST /api-keys',
  );
}

function idsOf(response: supertest.Response, list: string): string[] {
  const data = (response.body as { data: Record<string, { id: string }[] | undefined> }).data;
  return (data[list] ?? []).map((item) => item.id);
}

/**
 * The isolation cases of the routes both APIs mount alike: webhook endpoints, API keys, the
 * client-credentials endpoint and the public network list. The other user can neither see nor
 * use nor change the owner's, and nothing changes.
 */
export const SHARED_ISOLATION_CASES: readonly IsolationCase[] = [
  {
    operation: 'POST /webhooks/endpoints',
    name: "the other user's new endpoint is theirs: the owner's list does not show it",
    async run(world) {
      const endpoint = await created<{ id: string }>(
        world
          .request(world.app)
          .post(`${world.basePath}/webhooks/endpoints`)
          .set('Authorization', bearer(world.other))
          .send({ url: 'http://127.0.0.1:9/other' }),
        'POST /webhooks/endpoints',
      );
      const list = await world
        .request(world.app)
        .get(`${world.basePath}/webhooks/endpoints`)
        .set('Authorization', bearer(world.owner));
      if (idsOf(list, 'endpoints').includes(endpoint.id)) throw new Error('the owner sees it');
    },
  },
  {
    operation: 'GET /webhooks/endpoints',
    name: "the other user's list does not show the owner's endpoint",
    async run(world) {
      const endpoint = await ownerEndpoint(world);
      const list = await world
        .request(world.app)
        .get(`${world.basePath}/webhooks/endpoints`)
        .set('Authorization', bearer(world.other));
      if (list.status !== 200 || idsOf(list, 'endpoints').includes(endpoint.id)) {
        throw new Error(`the other user sees it: ${JSON.stringify(list.body)}`);
      }
    },
  },
  {
    operation: 'GET /webhooks/endpoints/{id}',
    name: "the owner's endpoint is 404 to the other user",
    async run(world) {
      const endpoint = await ownerEndpoint(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .get(`${world.basePath}/webhooks/endpoints/${endpoint.id}`)
          .set('Authorization', bearer(world.other)),
      );
    },
  },
  {
    operation: 'DELETE /webhooks/endpoints/{id}',
    name: "the other user cannot delete the owner's endpoint",
    async run(world) {
      const endpoint = await ownerEndpoint(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .delete(`${world.basePath}/webhooks/endpoints/${endpoint.id}`)
          .set('Authorization', bearer(world.other)),
      );
    },
  },
  {
    operation: 'GET /webhooks/endpoints/{id}/attempts',
    name: "the owner's delivery attempts are 404 to the other user",
    async run(world) {
      const endpoint = await ownerEndpoint(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .get(`${world.basePath}/webhooks/endpoints/${endpoint.id}/attempts`)
          .set('Authorization', bearer(world.other)),
      );
    },
  },
  {
    operation: 'POST /webhooks/endpoints/{id}/events/{eventId}/redeliver',
    name: "the other user cannot redeliver the owner's event, on the owner's endpoint or their own",
    async run(world) {
      const endpoint = await ownerEndpoint(world);
      const eventId = await world.ownerEvent(endpoint.id);
      const theirs = await created<{ id: string }>(
        world
          .request(world.app)
          .post(`${world.basePath}/webhooks/endpoints`)
          .set('Authorization', bearer(world.other))
          .send({ url: 'http://127.0.0.1:9/other' }),
        'POST /webhooks/endpoints',
      );
      for (const endpointId of [endpoint.id, theirs.id]) {
        await expectRefusedAndUnchanged(world, 404, () =>
          world
            .request(world.app)
            .post(`${world.basePath}/webhooks/endpoints/${endpointId}/events/${eventId}/redeliver`)
            .set('Authorization', bearer(world.other)),
        );
      }
    },
  },
  {
    operation: 'POST /api-keys',
    name: "the other user's new key acts for them only: the owner's keys stay out of its reach",
    async run(world) {
      const owners = await ownerApiKey(world);
      const theirs = await created<{ id: string; key: string }>(
        world
          .request(world.app)
          .post(`${world.basePath}/api-keys`)
          .set('Authorization', bearer(world.other))
          .send({ name: 'other key' }),
        'POST /api-keys',
      );
      const list = await world
        .request(world.app)
        .get(`${world.basePath}/api-keys`)
        .set('Authorization', `Bearer ${theirs.key}`);
      const ids = idsOf(list, 'apiKeys');
      if (list.status !== 200 || ids.includes(owners.id) || !ids.includes(theirs.id)) {
        throw new Error(`the other user's key lists ${JSON.stringify(list.body)}`);
      }
    },
  },
  {
    operation: 'GET /api-keys',
    name: "the other user's list does not show the owner's key",
    async run(world) {
      const key = await ownerApiKey(world);
      const list = await world
        .request(world.app)
        .get(`${world.basePath}/api-keys`)
        .set('Authorization', bearer(world.other));
      if (list.status !== 200 || idsOf(list, 'apiKeys').includes(key.id)) {
        throw new Error(`the other user sees it: ${JSON.stringify(list.body)}`);
      }
    },
  },
  {
    operation: 'GET /api-keys/{keyId}',
    name: "the owner's key is 404 to the other user",
    async run(world) {
      const key = await ownerApiKey(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .get(`${world.basePath}/api-keys/${key.id}`)
          .set('Authorization', bearer(world.other)),
      );
    },
  },
  {
    operation: 'PATCH /api-keys/{keyId}',
    name: "the other user cannot change the scopes of the owner's key",
    async run(world) {
      const key = await ownerApiKey(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .patch(`${world.basePath}/api-keys/${key.id}`)
          .set('Authorization', bearer(world.other))
          .send({ scopes: ['read'] }),
      );
    },
  },
  {
    operation: 'DELETE /api-keys/{keyId}',
    name: "the other user cannot revoke the owner's key",
    async run(world) {
      const key = await ownerApiKey(world);
      await expectRefusedAndUnchanged(world, 404, () =>
        world
          .request(world.app)
          .delete(`${world.basePath}/api-keys/${key.id}`)
          .set('Authorization', bearer(world.other)),
      );
    },
  },
  {
    operation: 'POST /oauth/token',
    name: "the owner's key id with the other user's key (or the owner's token) gets no token",
    async run(world) {
      const owners = await ownerApiKey(world);
      const theirs = await created<{ id: string; key: string }>(
        world
          .request(world.app)
          .post(`${world.basePath}/api-keys`)
          .set('Authorization', bearer(world.other))
          .send({ name: 'other key' }),
        'POST /api-keys',
      );
      for (const secret of [theirs.key, world.owner.token]) {
        const before = await world.digest();
        const response = await world
          .request(world.app)
          .post(`${world.basePath}/oauth/token`)
          .auth(owners.id, secret)
          .type('form')
          .send({ grant_type: 'client_credentials' });
        const body = response.body as { access_token?: unknown };
        if (response.status !== 401 || body.access_token !== undefined) {
          throw new Error(
            `expected 401, got ${String(response.status)} ${JSON.stringify(response.body)}`,
          );
        }
        if ((await world.digest()) !== before)
          throw new Error('the refused request changed the database');
      }
    },
  },
  {
    operation: 'GET /account',
    name: "each user's account is their own: the other user sees their id, never the owner's",
    async run(world) {
      const read = (party: Party) =>
        world
          .request(world.app)
          .get(`${world.basePath}/account`)
          .set('Authorization', bearer(party));
      const [mine, theirs] = await Promise.all([read(world.owner), read(world.other)]);
      const idOf = (response: supertest.Response) =>
        (response.body as { data?: { userId?: string } }).data?.userId;
      if (idOf(mine) !== world.owner.id || idOf(theirs) !== world.other.id) {
        throw new Error(`accounts mixed up: ${JSON.stringify([mine.body, theirs.body])}`);
      }
      if (JSON.stringify(theirs.body).includes(world.owner.id)) {
        throw new Error("the other user's account names the owner");
      }
    },
  },
  {
    operation: 'GET /account/credit-movements',
    name: "the other user's credit movements hold none of the owner's",
    async run(world) {
      const read = (party: Party) =>
        world
          .request(world.app)
          .get(`${world.basePath}/account/credit-movements?limit=100`)
          .set('Authorization', bearer(party));
      const ids = (response: supertest.Response) =>
        ((response.body as { data?: { movements?: { id: number }[] } }).data?.movements ?? []).map(
          (movement) => movement.id,
        );
      const [mine, theirs] = await Promise.all([read(world.owner), read(world.other)]);
      if (mine.status !== 200 || theirs.status !== 200) {
        throw new Error(`expected 200s, got ${String(mine.status)} ${String(theirs.status)}`);
      }
      const owners = new Set(ids(mine));
      if (ids(theirs).some((id) => owners.has(id))) {
        throw new Error("the other user's list holds the owner's movements");
      }
    },
  },
  {
    operation: 'GET /networks',
    name: 'the network list is the same for every caller (no user data in it)',
    async run(world) {
      const answers = await Promise.all(
        [world.owner, world.other].map((party) =>
          world
            .request(world.app)
            .get(`${world.basePath}/networks`)
            .set('Authorization', bearer(party)),
        ),
      );
      const anonymous = await world.request(world.app).get(`${world.basePath}/networks`);
      for (const answer of answers) {
        if (JSON.stringify(answer.body) !== JSON.stringify(anonymous.body)) {
          throw new Error('the network list depends on the caller');
        }
      }
    },
  },
];

/**
 * The id of a webhook event of `userId` delivered to `endpointId`, once the API's own records
 * (made by the caller) made one: what an isolation world's `ownerEvent` answers.
 */
export async function webhookEventOf(
  knex: Queryable,
  endpointId: string,
  userId: string,
): Promise<string> {
  const row = await knex('webhook_deliveries')
    .join('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .where({ 'webhook_deliveries.endpoint_id': endpointId, 'webhook_events.user_id': userId })
    .first<{ id: string } | undefined>('webhook_events.id as id');
  if (row === undefined) throw new Error(`no webhook event of ${userId} at ${endpointId}`);
  return row.id;
}
