import { defaultErrorCatalogue, type ErrorCatalogue } from '@trustpoint/domain';
import fc from 'fast-check';
import {
  API_DOCS_DOCUMENT_PATH,
  HEADERS_TOO_LARGE_BODY,
  TOO_MANY_REQUESTS_BODY,
} from '@trustpoint/http';
import { exchange, type RawResponse } from '@trustpoint/test-doubles/raw-exchange';
import {
  OpenApiResponseChecker,
  type OpenApiDocument,
} from '../openapi/openapi-response-checker.js';
import { apiOperations, type ApiOperation } from './api-operations.js';
import { fuzzRequest, type FuzzAuthorization, type FuzzRequest } from './fuzz-request.js';
import { GENERATED_MEDIA_TYPES } from './request-body.js';
import type { KnownValues } from './schema-values.js';
import { bodyHoldsUnstorableText } from './unstorable-text-in-body.js';

/** How many cases, from which seed, and (to replay one failure) which path. */
export interface FuzzSettings {
  seed: number;
  runs: number;
  /** fast-check's path of a failed case: only that case runs. */
  path: string | undefined;
}

/**
 * The settings from `FUZZ_SEED`, `FUZZ_RUNS` and `FUZZ_PATH`, with the test's defaults. A bad
 * value stops the run rather than quietly fuzzing something else.
 */
export function fuzzSettingsFromEnv(
  defaults: { seed: number; runs: number },
  env: NodeJS.ProcessEnv = process.env,
): FuzzSettings {
  const integer = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, not ${text}`);
    return value;
  };
  return {
    seed: integer('FUZZ_SEED', defaults.seed),
    runs: integer('FUZZ_RUNS', defaults.runs),
    path: env.FUZZ_PATH === '' ? undefined : env.FUZZ_PATH,
  };
}

/** An API on the listener, by the base path its document is served under. */
export interface FuzzedApi {
  basePath: string;
  /** Operations left out of the fuzz, by name (`POST /cert/v2/...`), with the reason. */
  skipped?: Readonly<Record<string, string>>;
  /** The credentials its requests carry, instead of the target's (an admin for the admin API). */
  authorizations?: readonly FuzzAuthorization[];
}

export interface HttpFuzzTarget {
  /** The listening server's port on 127.0.0.1. */
  port: number;
  apis: readonly FuzzedApi[];
  /** Ids the service issued (certificates, assets, keys, ...), by parameter or member name. */
  known: KnownValues;
  authorizations: readonly FuzzAuthorization[];
  /**
   * A cheap digest of everything a refused request must leave alone; compared before and after
   * every case answered 4xx.
   */
  stateDigest: () => Promise<string>;
  /** The catalogue the service answers errors from (its support contact). */
  catalogue?: ErrorCatalogue;
  /** One value in this many is odd; default 8. */
  oddOneIn?: number;
  /** Milliseconds a case may take to be answered; default 60 s (a creation may wait to be anchored). */
  answerTimeoutMs?: number;
}

export interface HttpFuzzOutcome {
  /** Cases run per operation name. */
  casesByOperation: ReadonlyMap<string, number>;
  /** Cases per status answered. */
  casesByStatus: ReadonlyMap<number, number>;
  operations: readonly ApiOperation[];
}

/** The documented operations of every API, read from the documents the listener serves. */
export async function servedOperations(
  port: number,
  apis: readonly FuzzedApi[],
): Promise<{ operations: ApiOperation[]; checkers: Map<string, OpenApiResponseChecker> }> {
  const operations: ApiOperation[] = [];
  const checkers = new Map<string, OpenApiResponseChecker>();
  for (const api of apis) {
    const response = await fetch(
      `http://127.0.0.1:${String(port)}${api.basePath}${API_DOCS_DOCUMENT_PATH}`,
    );
    if (response.status !== 200)
      throw new Error(
        `${api.basePath}${API_DOCS_DOCUMENT_PATH} answered ${String(response.status)}`,
      );
    const document = (await response.json()) as OpenApiDocument;
    checkers.set(api.basePath, new OpenApiResponseChecker(document, api.basePath));
    operations.push(
      ...apiOperations(document, api.basePath).filter(
        (operation) => api.skipped?.[operation.name] === undefined,
      ),
    );
  }
  return { operations, checkers };
}

/**
 * What the fuzzer could not generate requests for: a body in a media type it does not write, or
 * a path parameter with neither an enum nor known values. A newly documented operation that
 * needs a new generator shows up here, so the test that asserts this list is empty fails.
 */
export function operationsWithoutGenerator(
  operations: readonly ApiOperation[],
  known: KnownValues,
): string[] {
  return operations.flatMap((operation) => {
    const problems: string[] = [];
    for (const body of operation.bodies) {
      if (
        !GENERATED_MEDIA_TYPES.includes(body.mediaType.toLowerCase()) &&
        !body.mediaType.toLowerCase().endsWith('+json')
      ) {
        problems.push(`${operation.name}: no generator for ${body.mediaType} bodies`);
      }
    }
    for (const parameter of operation.parameters) {
      if (parameter.in !== 'path') continue;
      const enumerated = Array.isArray(parameter.schema.enum);
      if (!enumerated && (known[parameter.name]?.length ?? 0) === 0) {
        problems.push(
          `${operation.name}: no known values for the path parameter ${parameter.name}`,
        );
      }
    }
    return problems;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why the answer breaks the rules every answer keeps, or undefined. */
function answerProblem(
  request: FuzzRequest,
  response: RawResponse,
  checker: OpenApiResponseChecker | undefined,
  catalogue: ErrorCatalogue,
): string | undefined {
  if (response.status >= 500) return `a ${String(response.status)}`;
  // A conditional request may be answered 304, as HTTP allows for any GET.
  const conditional = request.headers.some(([name]) =>
    /^if-(none-match|modified-since)$/i.test(name),
  );
  if (response.status === 304 && conditional) return undefined;
  // HEAD answers have no body, and OPTIONS is HTTP's own (Allow, or a CORS preflight): neither
  // is a documented operation, so only the rules for errors below apply to them. Nor does a path
  // with dot segments (`/users/./`): the server takes `.` as an id, while a URL parser, and so the
  // document's router, would remove it.
  const dotSegments = /\/(\.|%2e){1,2}(\/|\?|$)/i.test(request.target);
  // The 431 for a request line and headers over Node's limit is the server's, before any app:
  // no operation documents it, and only the rules for errors apply.
  const documented =
    request.method !== 'HEAD' &&
    request.method !== 'OPTIONS' &&
    !dotSegments &&
    response.status !== 431;
  if (checker && documented) {
    try {
      checker.check({
        method: request.method,
        url: request.target,
        status: response.status,
        contentType: response.headers['content-type'],
        body: response.body,
      });
    } catch (error) {
      return (error as Error).message;
    }
  }
  if (response.status < 400) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return request.method === 'HEAD' ? undefined : 'an error answer whose body is not JSON';
  }
  // The OAuth endpoint answers RFC 6749's own error bodies ({ error, error_description }).
  if (!isRecord(body) || !('message' in body)) {
    return checker && documented ? undefined : 'an error body without a message';
  }
  const allowed = [
    ...Object.values(catalogue),
    TOO_MANY_REQUESTS_BODY,
    HEADERS_TOO_LARGE_BODY,
  ].filter((entry) => entry.statusCode === response.status);
  if (!allowed.some((entry) => entry.type === body.type && entry.message === body.message)) {
    return `type ${JSON.stringify(body.type)} and message ${JSON.stringify(body.message)} are not the catalogue's for ${String(response.status)}`;
  }
  if (response.status === 400 && (!Array.isArray(body.errors) || body.errors.length === 0)) {
    return 'a 400 without errors';
  }
  return undefined;
}

/**
 * A success answer to a documented JSON body holding U+0000 or a lone surrogate: the text rule
 * refuses them, and a success means the text was stored altered (U+FFFD) or dropped. A 5xx is not
 * the only way such text goes wrong, so the fuzz looks at successes too.
 */
function acceptedUnstorableText(
  operation: ApiOperation | undefined,
  request: FuzzRequest,
  response: RawResponse,
): string | undefined {
  if (response.status < 200 || response.status >= 300) return undefined;
  // A case sent with another method than its operation's (a GET with a body) reaches a route
  // that reads no body: its success says nothing about the text.
  if (operation === undefined || request.method !== operation.method) return undefined;
  const documentsJson = operation.bodies.some((body) => /json/i.test(body.mediaType));
  if (!documentsJson || !bodyHoldsUnstorableText(request.headers, request.body)) return undefined;
  return `a ${String(response.status)} to a body holding U+0000 or a lone surrogate, which the text rule refuses`;
}

function describeResponse(response: RawResponse): string {
  const body = response.body.toString('utf8');
  return `${String(response.status)} ${JSON.stringify(response.headers)} ${body.length > 1_000 ? `${body.slice(0, 1_000)}...` : body}`;
}

/**
 * Runs `settings.runs` generated requests against the listener, one at a time, and fails (with
 * the seed, the path to replay with `FUZZ_SEED=... FUZZ_PATH=...`, the exact request and the
 * answer) on the first that gets a 5xx, no complete answer, an answer the served document does
 * not describe, an error not in the catalogue, or that changed the state digest while refused.
 */
export async function runHttpFuzz(
  target: HttpFuzzTarget,
  settings: FuzzSettings,
  label: string,
): Promise<HttpFuzzOutcome> {
  const { operations, checkers } = await servedOperations(target.port, target.apis);
  const missing = operationsWithoutGenerator(operations, target.known);
  if (missing.length > 0) throw new Error(`no generator for:\n${missing.join('\n')}`);
  const catalogue = target.catalogue ?? defaultErrorCatalogue;
  const timeoutMs = target.answerTimeoutMs ?? 60_000;
  const requests = fc.oneof(
    ...operations.map((operation) =>
      fuzzRequest(operation, {
        port: target.port,
        known: target.known,
        authorizations:
          target.apis.find((api) => api.basePath === operation.basePath)?.authorizations ??
          target.authorizations,
        oddOneIn: target.oddOneIn ?? 8,
      }),
    ),
  );
  const casesByOperation = new Map<string, number>();
  const casesByStatus = new Map<number, number>();
  let lastDigest: string | undefined;

  const property = fc.asyncProperty(requests, async (request) => {
    casesByOperation.set(request.operation, (casesByOperation.get(request.operation) ?? 0) + 1);
    // A refused request's digest is the next one's before: one query a case, not two.
    const before = lastDigest ?? (await target.stateDigest());
    lastDigest = undefined;
    const response = await exchange(target.port, request.raw(), timeoutMs);
    const status = response?.status ?? 0;
    casesByStatus.set(status, (casesByStatus.get(status) ?? 0) + 1);
    if (response !== undefined) {
      const operation = operations.find((candidate) => candidate.name === request.operation);
      const checker = operation === undefined ? undefined : checkers.get(operation.basePath);
      const problem =
        acceptedUnstorableText(operation, request, response) ??
        answerProblem(request, response, checker, catalogue);
      if (problem !== undefined)
        throw new Error(`${problem}\n  answer: ${describeResponse(response)}`);
    }
    // Refused, or abandoned by the client before it was whole: nothing may have changed.
    if (response === undefined || response.status >= 400) {
      const after = await target.stateDigest();
      lastDigest = after;
      if (after !== before) {
        throw new Error(
          `a ${response === undefined ? 'request abandoned by its client' : 'refused request'} changed the state\n` +
            `  before: ${before}\n  after:  ${after}\n  answer: ${response === undefined ? '(none)' : describeResponse(response)}`,
        );
      }
    }
  });

  console.log(
    `${label}: FUZZ_SEED=${String(settings.seed)} FUZZ_RUNS=${String(settings.runs)}${settings.path === undefined ? '' : ` FUZZ_PATH=${settings.path}`}`,
  );
  const details = await fc.check(property, {
    seed: settings.seed,
    numRuns: settings.runs,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  });
  if (details.failed) {
    const cause =
      details.errorInstance instanceof Error
        ? details.errorInstance.message
        : String(details.errorInstance);
    throw new Error(
      `${label}: a case failed after ${String(details.numRuns)} runs (shrunk ${String(details.numShrinks)} times)\n` +
        `  replay: FUZZ_SEED=${String(details.seed)} FUZZ_PATH=${details.counterexamplePath ?? ''}\n` +
        `  request: ${details.counterexample?.[0]?.toString() ?? '(none)'}\n` +
        `  ${cause}`,
    );
  }
  return { casesByOperation, casesByStatus, operations };
}
