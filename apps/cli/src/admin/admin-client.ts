import type { AdminApi } from '@trustpoint/sdk';
import createClient, { type Client } from 'openapi-fetch';
import { CliError } from '../cli-error.js';
import { EXIT, exitCodeOfStatus } from '../exit-codes.js';
import { deadlineSignal, unreachableError } from '../service-timeout.js';

export interface AdminConnection {
  /** The certificate API's origin, e.g. http://127.0.0.1:8080 (the admin API is at /admin/v1). */
  url: string;
  token: string;
  /** How long each request may take (`serviceTimeoutMs`: TRUSTPOINT_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

/** The admin API's schemas, generated from its committed OpenAPI document. */
export type AdminSchemas = AdminApi.components['schemas'];
/** The error body as documented, read from whatever answered: any member may be missing. */
type ErrorBody = Partial<Omit<AdminSchemas['ErrorBody'], 'errors'>> & {
  errors?: Partial<AdminSchemas['FieldError']>[];
};

/** What openapi-fetch answers for one call. */
interface Answer<T> {
  data?: { data: T };
  error?: unknown;
  response: Response;
}

/** What the service said went wrong, in one line: its message and each field's error. */
function describeError(status: number, body: ErrorBody | undefined): string {
  const message = body?.message ?? `the service answered ${String(status)}`;
  const fields = (body?.errors ?? [])
    .map((error) => `${error.field ?? '?'}: ${error.error ?? 'invalid'}`)
    .join('; ');
  return fields === '' ? message : `${message} (${fields})`;
}

/**
 * The admin API over HTTP. `api` is an openapi-fetch client typed from the admin API's document
 * (`AdminApi` of @trustpoint/sdk), so each path, parameter and body is checked against it;
 * `answer` turns its result into the `data` of the success envelope, and every failure into a
 * `CliError` carrying the exit code for its status and the service's error body.
 */
export class AdminClient {
  readonly api: Client<AdminApi.paths>;

  constructor(readonly connection: AdminConnection) {
    let origin: URL;
    try {
      origin = new URL(connection.url);
    } catch {
      throw new CliError(`--url is not a URL: ${connection.url}`, EXIT.usage);
    }
    if (origin.protocol !== 'http:' && origin.protocol !== 'https:') {
      throw new CliError(`--url must be http(s): ${connection.url}`, EXIT.usage);
    }
    this.api = createClient<AdminApi.paths>({
      baseUrl: `${connection.url.replace(/\/+$/, '')}/admin/v1`,
      headers: { Authorization: `Bearer ${connection.token}`, Accept: 'application/json' },
      fetch: (request) => this.#send(request),
    });
  }

  async #send(request: Request): Promise<Response> {
    try {
      return await fetch(request, {
        redirect: 'error',
        signal: deadlineSignal(this.connection.timeoutMs),
      });
    } catch (error) {
      throw unreachableError(this.connection.url, error);
    }
  }

  /** The `data` of a success answer to a call of `api`. */
  async answer<T>(call: Promise<Answer<T>>): Promise<T> {
    let answer: Answer<T> | undefined;
    try {
      answer = await call;
    } catch (error) {
      // A success that is not JSON (openapi-fetch parses it as such) is not the admin API.
      if (!(error instanceof SyntaxError)) throw error;
    }
    const response = answer?.response;
    if (response !== undefined && !response.ok) {
      const body =
        typeof answer?.error === 'object' && answer.error !== null
          ? (answer.error as ErrorBody)
          : undefined;
      throw new CliError(
        describeError(response.status, body),
        exitCodeOfStatus(response.status),
        body ?? { statusCode: response.status },
      );
    }
    const data = answer?.data;
    if (typeof data !== 'object' || !('data' in data)) {
      const where = response === undefined ? '' : ` ${new URL(response.url).pathname}`;
      throw new CliError(
        `the service answered${where} with no data (is --url the certificate API?)`,
        EXIT.failure,
      );
    }
    return data.data;
  }
}
