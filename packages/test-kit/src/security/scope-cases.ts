import type { RequestListener } from 'node:http';
import { API_SCOPES, isApiScope, type ApiScope } from '@trustpoint/domain';
import type supertest from 'supertest';

import { documentedOperations } from './isolation-cases.js';
import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';

/** What checking every documented operation's scope needs of an API under test. */
export interface ScopeCheckWorld {
  /** supertest's `request`, checked against the API's document (`checkedRequest`). */
  request: (app: RequestListener) => supertest.Agent;
  app: RequestListener;
  /** Where the operations of `document` are mounted, e.g. `/cert/v2` or `/admin/v1`. */
  basePath: string;
  document: OpenApiDocument;
  /** An API key of the caller with exactly these scopes (`tp_live_...`). */
  keyWith(scopes: readonly ApiScope[]): Promise<string>;
  /** A digest of the callers' state in the database, equal when nothing changed. */
  digest(): Promise<string>;
  /** Values for path parameters (real records make a request go further); `x` otherwise. */
  pathValues?: Record<string, string>;
}

/** The scope an operation of the document requires (`x-required-scope`), if any. */
export function requiredScopeOf(
  document: OpenApiDocument,
  operation: string,
): ApiScope | undefined {
  const [method = '', path = ''] = operation.split(' ');
  const item = document.paths?.[path] as Record<string, Record<string, unknown>> | undefined;
  const scope = item?.[method.toLowerCase()]?.['x-required-scope'];
  return typeof scope === 'string' && isApiScope(scope) ? scope : undefined;
}

function send(world: ScopeCheckWorld, operation: string, key: string): supertest.Test {
  const [method = '', template = ''] = operation.split(' ');
  const path = template.replace(
    /\{(\w+)\}/g,
    (_match, name: string) => world.pathValues?.[name] ?? 'x',
  );
  return world
    .request(world.app)
    [method.toLowerCase() as 'get'](`${world.basePath}${path}`)
    .set('Authorization', `Bearer ${key}`)
    .send({});
}

function refusedForScope(response: supertest.Response, scope: ApiScope): boolean {
  const body = response.body as { type?: unknown; errors?: { field?: unknown; error?: unknown }[] };
  return (
    response.status === 403 &&
    body.type === 'Forbidden Error' &&
    body.errors?.[0]?.field === 'scope' &&
    typeof body.errors[0].error === 'string' &&
    body.errors[0].error.includes(`"${scope}"`)
  );
}

/**
 * Tries every operation of the document that names a required scope twice: with a key holding
 * every scope but that one (it must be a 403 naming the scope, with the spec's error body, and
 * change nothing), and with a key holding only that scope (it must not be refused for its scope;
 * made-up path values may make it a 400 or 404). Returns the failures, one line each, and the
 * operations checked.
 */
export async function checkEveryOperationScope(
  world: ScopeCheckWorld,
): Promise<{ checked: string[]; failures: string[] }> {
  const checked: string[] = [];
  const failures: string[] = [];
  const keys = new Map<string, string>();
  const keyOf = async (scopes: readonly ApiScope[]) => {
    const name = scopes.join(' ');
    let key = keys.get(name);
    if (key === undefined) {
      key = await world.keyWith(scopes);
      keys.set(name, key);
    }
    return key;
  };
  for (const operation of documentedOperations(world.document)) {
    const scope = requiredScopeOf(world.document, operation);
    if (scope === undefined) continue;
    checked.push(operation);
    // Keys first: making one changes the database.
    const lacking = await keyOf(API_SCOPES.filter((s) => s !== scope));
    const holding = await keyOf([scope]);
    const before = await world.digest();
    const without = await send(world, operation, lacking);
    if (!refusedForScope(without, scope)) {
      failures.push(
        `${operation} without ${scope}: ${String(without.status)} ${JSON.stringify(without.body)}`,
      );
    } else if ((await world.digest()) !== before) {
      failures.push(`${operation} without ${scope}: refused, but the database changed`);
    }
    const only = await send(world, operation, holding);
    if (
      only.status === 403 &&
      (only.body as { errors?: { field?: string }[] }).errors?.[0]?.field === 'scope'
    ) {
      failures.push(`${operation} with only ${scope}: ${JSON.stringify(only.body)}`);
    }
  }
  return { checked, failures };
}
