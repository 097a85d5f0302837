import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIRouter } from 'openapi-backend';
import { API_DOCS_DOCUMENT_PATH, API_DOCS_PAGE_PATH } from '@trustpoint/http';

/** An OpenAPI 3.1 document, as `openapi-backend` types it. */
export type OpenApiDocument = OpenAPIRouter['definition'];

/** One answer as a client received it. */
export interface ObservedResponse {
  /** `GET`, `post`, ...: the case does not matter. */
  method: string;
  /** The path as requested, with or without its query, e.g. `/cert/v2/certificates?limit=1`. */
  url: string;
  status: number;
  /** The `Content-Type` header, if any. */
  contentType: string | undefined;
  /** The body as received (text or bytes); empty or undefined when there was none. */
  body: string | Uint8Array | undefined;
}

/** An answer the document does not describe; the message names the operation and the problems. */
export class OpenApiMismatchError extends Error {
  constructor(
    readonly response: ObservedResponse,
    readonly where: string,
    readonly problems: readonly string[],
  ) {
    super(
      `OpenAPI mismatch: ${where} answered ${String(response.status)} ` +
        `${response.contentType ?? '(no content type)'}\n` +
        problems.map((problem) => `  - ${problem}`).join('\n'),
    );
    this.name = 'OpenApiMismatchError';
  }
}

/** How many schema errors a message lists; the first ones say what is wrong. */
const MAX_SCHEMA_ERRORS = 20;

/** Fields of the OpenAPI Object and of its Schema Objects that are not JSON Schema keywords. */
const OPENAPI_KEYWORDS = [
  // OpenAPI Object: ajv reaches schemas through a JSON pointer into the whole document.
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
  // Schema Object annotations of the OpenAPI 3.1 dialect.
  'discriminator',
  'xml',
  'externalDocs',
  'example',
];

/** The document's own id in ajv, so `#/components/...` references resolve inside it. */
const DOCUMENT_ID = 'openapi.json';

function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** The documented media range that covers `mediaType`: exact first, then `type/*`, then `*\/*`. */
function documentedMediaRange(ranges: readonly string[], mediaType: string): string | undefined {
  const [type] = mediaType.split('/');
  return [mediaType, `${type ?? ''}/*`, '*/*'].find((range) =>
    ranges.some((documented) => documented.toLowerCase() === range),
  );
}

function sizeOf(body: ObservedResponse['body']): number {
  return body?.length ?? 0;
}

function textOf(body: ObservedResponse['body']): string {
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}

/** RFC 6901 pointer into the document, as a URI fragment (path templates hold `{` and `}`). */
function pointer(...tokens: string[]): string {
  return `${DOCUMENT_ID}#/${tokens
    .map((token) => encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1')))
    .join('/')}`;
}

interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks answers against an OpenAPI 3.1 document: the operation is found by method and path
 * (openapi-backend's router), the status must be documented for it (exactly, as `4XX` or as
 * `default`), the content type must be one the response documents (none if it documents no
 * content), and a JSON body must match the response's schema, validated as JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1 (ajv's `Ajv2020` with ajv-formats). A body's `statusCode`, when it
 * has one, must be the HTTP status (spec 2.1 and 7.1).
 *
 * Paths the document does not describe must answer the spec's error body (the document's
 * `ErrorBody` schema), except the documentation `apiDocs` serves beside the API (the document
 * itself and the Swagger UI page), whose successful answers are not part of the API.
 */
export class OpenApiResponseChecker {
  private readonly router: OpenAPIRouter;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  /**
   * @param document The OpenAPI document, as served.
   * @param basePath Where the API and its documentation are mounted, e.g. `/cert/v2`: the
   *   document's first server must be this path.
   */
  constructor(
    private readonly document: OpenApiDocument,
    private readonly basePath: string,
  ) {
    const server = document.servers?.[0]?.url;
    if (server !== basePath) {
      throw new Error(
        `the OpenAPI document names server ${String(server)}, but is served under ${basePath}`,
      );
    }
    this.router = new OpenAPIRouter({ definition: document, apiRoot: basePath });
    // Unknown keywords and formats are errors (a misspelt keyword would check nothing); the other
    // strict rules are style advice about schemas that are valid JSON Schema all the same.
    this.ajv = new Ajv2020({
      allErrors: true,
      strictSchema: true,
      strictNumbers: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
    });
    addFormats(this.ajv);
    // OpenAPI's format for bytes; the body of such a response is never parsed as JSON.
    this.ajv.addFormat('binary', true);
    this.ajv.addVocabulary(OPENAPI_KEYWORDS);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /** Throws an `OpenApiMismatchError` unless the document describes `response`. */
  check(response: ObservedResponse): void {
    const path = new URL(response.url, 'http://localhost').pathname;
    const method = response.method.toLowerCase();
    const request = { method: method === 'head' ? 'get' : method, path, headers: {} };
    const operation = this.router.matchOperation(request);
    if (operation) {
      const where = `${method.toUpperCase()} ${response.url} (${operation.operationId ?? 'operation'}: ${method.toUpperCase()} ${operation.path})`;
      this.fail(response, where, this.operationProblems(response, operation, method === 'head'));
      return;
    }
    const where = `${method.toUpperCase()} ${response.url}, which the document does not describe`;
    if (this.isDocumentation(request.method, path) && response.status < 400) {
      this.fail(response, where, this.documentationProblems(response, path));
      return;
    }
    this.fail(response, where, this.errorBodyProblems(response));
  }

  private fail(response: ObservedResponse, where: string, problems: string[]): void {
    if (problems.length > 0) throw new OpenApiMismatchError(response, where, problems);
  }

  private isDocumentation(method: string, path: string): boolean {
    const page = this.basePath + API_DOCS_PAGE_PATH;
    return (
      method === 'get' &&
      (path === this.basePath + API_DOCS_DOCUMENT_PATH ||
        path === page ||
        path.startsWith(`${page}/`))
    );
  }

  /** The document is JSON; the page and its assets are whatever Swagger UI serves. */
  private documentationProblems(response: ObservedResponse, path: string): string[] {
    if (path !== this.basePath + API_DOCS_DOCUMENT_PATH) return [];
    const mediaType = mediaTypeOf(response.contentType);
    return mediaType === 'application/json' && response.status === 200
      ? []
      : [`the document must be served as 200 application/json`];
  }

  private operationProblems(
    response: ObservedResponse,
    operation: NonNullable<ReturnType<OpenAPIRouter['matchOperation']>>,
    head: boolean,
  ): string[] {
    const responses = (operation.responses ?? {}) as Record<string, ResponseObject>;
    const status = String(response.status);
    const statusKey = [status, `${status[0] ?? ''}XX`, 'default'].find((key) => key in responses);
    if (statusKey === undefined) {
      return [
        `status ${status} is not documented; documented: ${Object.keys(responses).join(', ')}`,
      ];
    }
    const { content } = responses[statusKey] ?? {};
    const ranges = Object.keys(content ?? {});
    if (ranges.length === 0) {
      return sizeOf(response.body) === 0
        ? []
        : [
            `response ${statusKey} documents no content, but a body of ${String(sizeOf(response.body))} bytes came`,
          ];
    }
    const mediaType = mediaTypeOf(response.contentType);
    const range = mediaType === undefined ? undefined : documentedMediaRange(ranges, mediaType);
    if (mediaType === undefined || range === undefined) {
      return [
        `content type ${mediaType ?? '(none)'} is not documented for ${statusKey}; documented: ${ranges.join(', ')}`,
      ];
    }
    if (head || !isJson(mediaType) || content?.[range]?.schema === undefined) return [];
    return this.jsonProblems(
      response,
      pointer(
        'paths',
        operation.path,
        operation.method,
        'responses',
        statusKey,
        'content',
        range,
        'schema',
      ),
    );
  }

  private errorBodyProblems(response: ObservedResponse): string[] {
    if (response.status < 400) {
      return [`only an error may answer here, but the status is ${String(response.status)}`];
    }
    const mediaType = mediaTypeOf(response.contentType);
    if (mediaType !== 'application/json') {
      return [`an error body is application/json, not ${mediaType ?? '(none)'}`];
    }
    if (!isRecord(this.document.components?.schemas?.ErrorBody)) {
      return ['the document has no components.schemas.ErrorBody to check the error body with'];
    }
    return this.jsonProblems(response, pointer('components', 'schemas', 'ErrorBody'));
  }

  private jsonProblems(response: ObservedResponse, schemaRef: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(textOf(response.body));
    } catch (error) {
      return [`the body is not JSON: ${(error as Error).message}`];
    }
    const validate = this.validatorFor(schemaRef);
    const problems =
      validate(body) || !validate.errors ? [] : this.describe(validate.errors, schemaRef);
    if (isRecord(body) && 'statusCode' in body && body.statusCode !== response.status) {
      problems.push(
        `body.statusCode is ${JSON.stringify(body.statusCode)}, not the HTTP status ${String(response.status)}`,
      );
    }
    return problems;
  }

  private validatorFor(schemaRef: string): ValidateFunction {
    let validate = this.validators.get(schemaRef);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schemaRef });
      this.validators.set(schemaRef, validate);
    }
    return validate;
  }

  private describe(errors: readonly ErrorObject[], schemaRef: string): string[] {
    const lines = errors.slice(0, MAX_SCHEMA_ERRORS).map((error) => {
      const { additionalProperty, allowedValue, allowedValues } = error.params as Record<
        string,
        unknown
      >;
      const detail = additionalProperty ?? allowedValue ?? allowedValues;
      const extra = detail === undefined ? '' : ` (${JSON.stringify(detail)})`;
      return `body${error.instancePath} ${error.message ?? error.keyword}${extra}`;
    });
    if (errors.length > lines.length)
      lines.push(`... ${String(errors.length - lines.length)} more`);
    return [
      `the body does not match ${decodeURIComponent(schemaRef)}:${lines.map((line) => `\n      ${line}`).join('')}`,
    ];
  }
}
