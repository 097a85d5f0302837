import type { RequestListener } from 'node:http';
import supertest from 'supertest';
import { API_DOCS_DOCUMENT_PATH } from '@trustpoint/http';
import {
  OpenApiResponseChecker,
  type ObservedResponse,
  type OpenApiDocument,
} from './openapi-response-checker.js';

/** What supertest's `request(app)` returns. */
export type CheckedAgent = ReturnType<typeof supertest>;

/** One checker per app and base path: the document is fetched once. */
const checkers = new WeakMap<RequestListener, Map<string, Promise<OpenApiResponseChecker>>>();

async function fetchChecker(
  app: RequestListener,
  basePath: string,
): Promise<OpenApiResponseChecker> {
  const path = basePath + API_DOCS_DOCUMENT_PATH;
  const response = await supertest(app).get(path);
  if (response.status !== 200) {
    throw new Error(`GET ${path}: expected the OpenAPI document, got ${String(response.status)}`);
  }
  return new OpenApiResponseChecker(response.body as OpenApiDocument, basePath);
}

/**
 * The checker of the document `app` serves at `<basePath>/openapi.json`, fetched from the app on
 * first use.
 */
export function servedDocumentChecker(
  app: RequestListener,
  basePath: string,
): Promise<OpenApiResponseChecker> {
  let byPath = checkers.get(app);
  if (!byPath) {
    byPath = new Map();
    checkers.set(app, byPath);
  }
  let checker = byPath.get(basePath);
  if (!checker) {
    checker = fetchChecker(app, basePath);
    byPath.set(basePath, checker);
  }
  return checker;
}

/**
 * Checks an answer received without supertest (e.g. over a raw socket) against the document the
 * app serves; rejects with an `OpenApiMismatchError` when the document does not describe it.
 */
export async function checkServedResponse(
  app: RequestListener,
  basePath: string,
  response: ObservedResponse,
): Promise<void> {
  (await servedDocumentChecker(app, basePath)).check(response);
}

/** supertest's response as the checker reads it: the text as received, or the bytes. */
function observed(method: string, url: string, response: supertest.Response): ObservedResponse {
  const body: unknown = response.body;
  return {
    method,
    url,
    status: response.status,
    contentType: response.get('Content-Type'),
    body:
      typeof response.text === 'string'
        ? response.text
        : body instanceof Uint8Array
          ? body
          : undefined,
  };
}

/** Makes awaiting `test` check its response before the caller sees it. */
function checkedTest(
  test: supertest.Test,
  app: RequestListener,
  basePath: string,
  url: string,
): supertest.Test {
  const then = test.then.bind(test);
  const checkedThen: typeof test.then = (onFulfilled, onRejected) =>
    then(async (response) => {
      await checkServedResponse(app, basePath, observed(test.method, url, response));
      return response;
    }).then(onFulfilled, onRejected);
  test.then = checkedThen;
  return test;
}

/**
 * supertest's `request`, except that every response is checked against the OpenAPI document the
 * app itself serves at `<basePath>/openapi.json`: awaiting a request whose answer the document
 * does not describe rejects with an `OpenApiMismatchError` naming the operation, the status and
 * the validator's errors. Bind it to an API's base path once and use it like `request(app)`.
 */
export function checkedRequest(basePath: string): (app: RequestListener) => CheckedAgent {
  return (app) => {
    const agent = supertest(app);
    return new Proxy(agent, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        // `get(url)`, `post(url)`, ...: each makes a Test for that url.
        return (...args: unknown[]) => {
          const made: unknown = Reflect.apply(value, target, args);
          return made instanceof supertest.Test && typeof args[0] === 'string'
            ? checkedTest(made, app, basePath, args[0])
            : made;
        };
      },
    });
  };
}
