import { CliError } from '../cli-error.js';
import { EXIT, exitCodeOfStatus } from '../exit-codes.js';

export interface AdminConnection {
  /** The certificate API's origin, e.g. http://127.0.0.1:8080 (the admin API is at /admin/v1). */
  url: string;
  token: string;
  /** Per request; the default is 30 s. */
  timeoutMs?: number;
}

interface ErrorBody {
  statusCode?: number;
  type?: string;
  message?: string;
  errors?: { field?: string; error?: string }[];
}

type Query = Record<string, string | number | boolean | undefined>;

/** What the service said went wrong, in one line: its message and each field's error. */
function describeError(status: number, body: ErrorBody | undefined): string {
  const message = body?.message ?? `the service answered ${String(status)}`;
  const fields = (body?.errors ?? [])
    .map((error) => `${error.field ?? '?'}: ${error.error ?? 'invalid'}`)
    .join('; ');
  return fields === '' ? message : `${message} (${fields})`;
}

/**
 * The admin API over HTTP. Each method answers the `data` of the success envelope; every failure
 * is a `CliError` carrying the exit code for its status and the service's error body.
 */
export class AdminClient {
  readonly #base: string;

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
    this.#base = `${connection.url.replace(/\/+$/, '')}/admin/v1`;
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.#send<T>('GET', path, undefined, query);
  }

  post<T>(path: string, body: object = {}): Promise<T> {
    return this.#send<T>('POST', path, body);
  }

  patch<T>(path: string, body: object): Promise<T> {
    return this.#send<T>('PATCH', path, body);
  }

  put<T>(path: string, body: object): Promise<T> {
    return this.#send<T>('PUT', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.#send<T>('DELETE', path);
  }

  async #send<T>(method: string, path: string, body?: object, query: Query = {}): Promise<T> {
    const url = new URL(`${this.#base}${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${this.connection.token}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.connection.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const reason = error instanceof Error ? (error.cause ?? error) : error;
      throw new CliError(
        `cannot reach the service at ${this.connection.url}: ${reason instanceof Error ? reason.message : String(reason)}`,
        EXIT.unreachable,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const errorBody = parsed as ErrorBody | undefined;
      throw new CliError(
        describeError(response.status, errorBody),
        exitCodeOfStatus(response.status),
        errorBody ?? { statusCode: response.status },
      );
    }
    if (parsed === null || typeof parsed !== 'object' || !('data' in parsed)) {
      throw new CliError(
        `the service answered ${method} ${url.pathname} with no data (is --url the certificate API?)`,
        EXIT.failure,
      );
    }
    return (parsed as { data: T }).data;
  }
}
