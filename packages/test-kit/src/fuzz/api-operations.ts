import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';

/** A JSON Schema as the OpenAPI 3.1 documents write it; read loosely. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface ApiRequestBody {
  mediaType: string;
  schema: JsonSchema;
  /** Per-property encodings of a multipart body (`encoding.<part>.contentType`). */
  partTypes: Readonly<Record<string, string>>;
}

/** One documented operation of an API, with everything a request generator needs. */
export interface ApiOperation {
  /** Where the API is mounted, e.g. `/cert/v2`. */
  basePath: string;
  /** Upper case, e.g. `POST`. */
  method: string;
  /** The document's path template, e.g. `/certificates/{type}/{id}`. */
  path: string;
  /** `POST /cert/v2/certificates/{type}/{id}`: names the operation in reports. */
  name: string;
  parameters: readonly ApiParameter[];
  bodies: readonly ApiRequestBody[];
  /** The document the operation comes from: its `$ref`s resolve there. */
  document: OpenApiDocument;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (RFC 6901 pointer) until the schema is not a reference. */
export function dereference(document: OpenApiDocument, schema: unknown): JsonSchema {
  let current = schema;
  for (let hops = 0; hops < 32; hops += 1) {
    if (!isRecord(current)) return {};
    const ref = current.$ref;
    if (typeof ref !== 'string') return current;
    if (!ref.startsWith('#/')) throw new Error(`only local references are followed, not ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, token) => (isRecord(node) ? node[token] : undefined), document);
    if (current === undefined) throw new Error(`${ref} does not resolve in the document`);
  }
  throw new Error('a chain of references too long to follow');
}

function parameterOf(document: OpenApiDocument, raw: unknown): ApiParameter {
  const parameter = dereference(document, raw);
  const where = parameter.in;
  if (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie') {
    throw new Error(`a parameter in ${String(where)}`);
  }
  return {
    name: String(parameter.name),
    in: where,
    required: parameter.required === true,
    schema: dereference(document, parameter.schema),
  };
}

function bodiesOf(document: OpenApiDocument, raw: unknown): ApiRequestBody[] {
  const body = dereference(document, raw);
  if (!isRecord(body.content)) return [];
  return Object.entries(body.content).map(([mediaType, media]) => {
    const partTypes: Record<string, string> = {};
    if (isRecord(media) && isRecord(media.encoding)) {
      for (const [part, encoding] of Object.entries(media.encoding)) {
        if (isRecord(encoding) && typeof encoding.contentType === 'string') {
          partTypes[part] = encoding.contentType;
        }
      }
    }
    return {
      mediaType,
      schema: dereference(document, isRecord(media) ? media.schema : undefined),
      partTypes,
    };
  });
}

/** Every operation `document` describes, the API being mounted at `basePath`. */
export function apiOperations(document: OpenApiDocument, basePath: string): ApiOperation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, rawItem]) => {
    const item = dereference(document, rawItem);
    const shared: unknown[] = Array.isArray(item.parameters) ? item.parameters : [];
    return METHODS.flatMap((method) => {
      const operation = item[method];
      if (!isRecord(operation)) return [];
      const own: unknown[] = Array.isArray(operation.parameters) ? operation.parameters : [];
      const parameters = [...shared, ...own].map((raw) => parameterOf(document, raw));
      return [
        {
          basePath,
          method: method.toUpperCase(),
          path,
          name: `${method.toUpperCase()} ${basePath}${path}`,
          parameters,
          bodies: bodiesOf(document, operation.requestBody),
          document,
        },
      ];
    });
  });
}
