import type { RequestListener } from 'node:http';
import { textProblem } from '@trustpoint/domain';
import { checkedRequest } from '../openapi/checked-request.js';
import {
  apiOperations,
  dereference,
  type ApiOperation,
  type JsonSchema,
} from '../fuzz/api-operations.js';
import type { KnownValues } from '../fuzz/schema-values.js';
import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';

/**
 * Text the shared rule refuses (`textProblem` of @trustpoint/domain): storage holds no U+0000, and
 * a lone surrogate has no UTF-8 form. In JSON both are sent escaped (`\u0000`, `\ud800`), as any
 * client's JSON writer sends them.
 */
export const UNSTORABLE_TEXTS = [
  { label: 'U+0000', text: 'a\u0000b' },
  { label: 'a lone surrogate', text: 'a\ud800b' },
] as const;

type Segment = string | number;

/** One request: a documented body with one string (or member name) replaced by refused text. */
export interface UnstorableTextCase {
  /** `POST /cert/v2/api-keys body.name (U+0000)`: names the case in reports. */
  name: string;
  /** The operation, as the HTTP fuzz names it (`POST /cert/v2/api-keys`). */
  operation: string;
  method: string;
  /** The path with its parameters and required query, ready to send. */
  target: string;
  /** `application/json`, `application/x-www-form-urlencoded` or `multipart/form-data`. */
  mediaType: string;
  /**
   * The body: JSON text, or form text, or for multipart the parts (JSON parts as JSON text, file
   * parts as a few bytes).
   */
  body: string | { fields: Record<string, string>; files: string[] };
  /** The field the refusal must name, dotted (`content.a`), without the `body.` prefix. */
  field: string;
  /**
   * The field is free text (no enum, pattern or format), so its refusal must be the text rule's
   * own message rather than any other check's.
   */
  freeText: boolean;
}

export interface UnstorableTextOptions {
  document: OpenApiDocument;
  basePath: string;
  /** Values for path and query parameters and for strings, by name (ids the service issued). */
  known: KnownValues;
  /**
   * The query an operation's body variant needs (`type=content&networkId=31337` for the content
   * certificate body), by the operation's name and the variant's schema name; default: the
   * required query parameters from `known`, their enum or example.
   */
  query?: (operation: string, variant: string | undefined) => string | undefined;
  /** A path parameter's value for one operation, where `known` has one for another resource. */
  pathValue?: (operation: string, parameter: string) => string | undefined;
}

interface Location {
  path: Segment[];
  /** The (dereferenced) schema of each container along `path`. */
  containers: JsonSchema[];
  memberName: boolean;
  freeText: boolean;
}

const FREE_FORM_MEMBER = 'member';
const MAX_DEPTH = 8;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: JsonSchema): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((item): item is string => typeof item === 'string');
  if (schema.properties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  return [];
}

function variantsOf(document: OpenApiDocument, schema: JsonSchema): JsonSchema[] | undefined {
  const variants = [schema.oneOf, schema.anyOf, schema.allOf].find(Array.isArray) as
    unknown[] | undefined;
  return variants?.map((variant) => dereference(document, variant));
}

function isFreeForm(schema: JsonSchema): boolean {
  return (
    typesOf(schema).includes('object') &&
    (!isRecord(schema.properties) || Object.keys(schema.properties).length === 0)
  );
}

/** Every place in `schema` a string (or a free-form member name) goes. */
function stringLocations(
  document: OpenApiDocument,
  raw: unknown,
  path: Segment[],
  containers: JsonSchema[],
  out: Location[],
): void {
  if (path.length > MAX_DEPTH) return;
  const schema = dereference(document, raw);
  const variants = variantsOf(document, schema);
  if (variants !== undefined) {
    const found: Location[] = [];
    for (const variant of variants) stringLocations(document, variant, path, containers, found);
    // A union refuses as a whole ("Invalid input"), not with its string alternative's message.
    out.push(
      ...found.map((location) =>
        location.path.length === path.length ? { ...location, freeText: false } : location,
      ),
    );
    return;
  }
  const types = typesOf(schema);
  if (types.includes('string')) {
    const constrained = ['enum', 'const', 'pattern', 'format'].some((key) => key in schema);
    out.push({ path, containers, memberName: false, freeText: !constrained });
  }
  if (types.includes('array')) {
    stringLocations(document, schema.items, [...path, 0], [...containers, schema], out);
  }
  if (isFreeForm(schema)) {
    // Free-form JSON (`content`, `data`, `metadata`): a member's value and a member's name.
    out.push({
      path: [...path, FREE_FORM_MEMBER],
      containers: [...containers, schema],
      memberName: false,
      freeText: true,
    });
    out.push({ path, containers: [...containers, schema], memberName: true, freeText: true });
  } else if (types.includes('object') && isRecord(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      stringLocations(document, property, [...path, name], [...containers, schema], out);
    }
  }
}

/** A valid-looking value of `schema`: its const, enum, example, a known value or a plain one. */
function baseValue(
  document: OpenApiDocument,
  raw: unknown,
  known: KnownValues,
  name?: string,
): unknown {
  const schema = dereference(document, raw);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = variantsOf(document, schema);
  if (variants !== undefined) {
    const variant = variants.find((candidate) => candidate.type !== 'null') ?? variants[0];
    return baseValue(document, variant, known, name);
  }
  const knownValue = name === undefined ? undefined : known[name]?.[0];
  const types = typesOf(schema);
  if (types.includes('string')) {
    if (knownValue !== undefined) return knownValue;
    if (schema.example !== undefined) return schema.example;
    if (schema.format === 'date-time') return '2099-01-01T00:00:00.000Z';
    if (schema.format === 'uri' || schema.format === 'url') return 'https://example.org/x';
    const minLength = typeof schema.minLength === 'number' ? schema.minLength : 1;
    return 'x'.repeat(Math.max(1, minLength));
  }
  if (types.includes('integer') || types.includes('number')) {
    if (schema.example !== undefined) return schema.example;
    if (typeof schema.minimum === 'number') return schema.minimum;
    if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + 1;
    return 1;
  }
  if (types.includes('boolean')) return false;
  if (types.includes('array')) {
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    return minItems > 0 ? [baseValue(document, schema.items, known)] : [];
  }
  if (isFreeForm(schema)) return schema.example ?? { a: 1 };
  if (types.includes('object')) return baseObject(document, schema, known);
  return null;
}

/** The object's required members, each with its base value. */
function baseObject(
  document: OpenApiDocument,
  schema: JsonSchema,
  known: KnownValues,
): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(
    required.map((name) => [name, baseValue(document, properties[name], known, name)]),
  );
}

/** The base body with `text` at the location (as the value there, or as a member's name). */
function bodyWith(
  document: OpenApiDocument,
  location: Location,
  text: string,
  known: KnownValues,
  level = 0,
): unknown {
  const container = location.containers[level];
  const segment = location.path[level];
  if (container === undefined) {
    // The string itself: inside a URL for URL fields, so that only the text rule can object.
    return location.freeText ? text : `https://example.org/${text}`;
  }
  if (location.memberName && level === location.containers.length - 1) {
    return { [text]: 1 };
  }
  const inner = bodyWith(document, location, text, known, level + 1);
  if (typeof segment === 'number') return [inner];
  const base = isFreeForm(container) ? {} : baseObject(document, container, known);
  return { ...base, [String(segment)]: inner };
}

function fieldOf(location: Location, text: string): string {
  return [...location.path, ...(location.memberName ? [text] : [])].map(String).join('.');
}

function targetOf(
  operation: ApiOperation,
  options: UnstorableTextOptions,
  variant: string | undefined,
): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const parameter = operation.parameters.find(
      (candidate) => candidate.in === 'path' && candidate.name === name,
    );
    const value =
      options.pathValue?.(operation.name, name) ??
      options.known[name]?.[0] ??
      (Array.isArray(parameter?.schema.enum) ? String(parameter.schema.enum[0]) : undefined);
    if (value === undefined) {
      throw new Error(`${operation.name}: no known value for the path parameter ${name}`);
    }
    return encodeURIComponent(value);
  });
  const query =
    options.query?.(operation.name, variant) ??
    operation.parameters
      .filter((parameter) => parameter.in === 'query' && parameter.required)
      .map((parameter) => {
        const value = baseValue(
          operation.document,
          parameter.schema,
          options.known,
          parameter.name,
        );
        return `${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(value))}`;
      })
      .join('&');
  return `${options.basePath}${path}${query === '' ? '' : `?${query}`}`;
}

/** A body variant: the whole body schema, or one of its `oneOf` alternatives, by name. */
function bodyVariants(document: OpenApiDocument, raw: unknown): [string | undefined, JsonSchema][] {
  const schema = dereference(document, raw);
  const variants = [schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
  if (variants === undefined) return [[undefined, schema]];
  return variants.map((variant) => {
    const ref = isRecord(variant) && typeof variant.$ref === 'string' ? variant.$ref : undefined;
    return [ref?.split('/').pop(), dereference(document, variant)];
  });
}

function formText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
}

/**
 * For every operation of the document with a request body, every string property of the body
 * (nested objects, array items, each `oneOf` variant, member names and values inside free-form
 * JSON objects) with each of `UNSTORABLE_TEXTS` in it and the rest of the body valid-looking.
 * Form bodies can carry no lone surrogate (percent-encoding is of UTF-8 bytes, and a surrogate has
 * none), so they get the U+0000 case only (`%00`).
 */
export function unstorableTextCases(options: UnstorableTextOptions): UnstorableTextCase[] {
  const { document, known } = options;
  return apiOperations(document, options.basePath).flatMap((operation) =>
    operation.bodies.flatMap((body) => {
      const mediaType = body.mediaType.toLowerCase();
      return bodyVariants(document, body.schema).flatMap(([variant, schema]) => {
        const target = targetOf(operation, options, variant);
        const locations: Location[] = [];
        if (
          mediaType === 'multipart/form-data' ||
          mediaType === 'application/x-www-form-urlencoded'
        ) {
          // Each part or field: a JSON part's strings inside it, a text field itself.
          const properties = isRecord(schema.properties) ? schema.properties : {};
          for (const [name, property] of Object.entries(properties)) {
            const part = dereference(document, property);
            if (part.format === 'binary') continue;
            stringLocations(document, part, [name], [], locations);
          }
        } else {
          stringLocations(document, schema, [], [], locations);
        }
        const texts =
          mediaType === 'application/x-www-form-urlencoded'
            ? UNSTORABLE_TEXTS.filter(({ text }) => text.includes('\u0000'))
            : UNSTORABLE_TEXTS;
        return locations.flatMap((location) =>
          texts.map(({ label, text }): UnstorableTextCase => {
            const field = fieldOf(location, text);
            const common = {
              name: `${operation.name}${variant === undefined ? '' : ` (${variant})`} body.${field.replace(text, '<text>')} (${label})`,
              operation: operation.name,
              method: operation.method,
              target,
              mediaType,
              field,
              freeText: location.freeText,
            };
            if (mediaType === 'application/x-www-form-urlencoded') {
              const fields = { ...baseObject(document, schema, known), [field]: 'TEXT' };
              return { ...common, body: formText(fields).replace('TEXT', 'a%00b') };
            }
            if (mediaType === 'multipart/form-data') {
              const [part] = location.path;
              const properties = isRecord(schema.properties) ? schema.properties : {};
              const fields: Record<string, string> = {};
              const files: string[] = [];
              for (const [name, property] of Object.entries(properties)) {
                const partSchema = dereference(document, property);
                if (partSchema.format === 'binary') files.push(name);
                else {
                  const value =
                    name === part
                      ? bodyWith(
                          document,
                          { ...location, path: location.path.slice(1) },
                          text,
                          known,
                        )
                      : baseValue(document, partSchema, known, name);
                  fields[name] = typeof value === 'string' ? value : JSON.stringify(value);
                }
              }
              return { ...common, body: { fields, files } };
            }
            return { ...common, body: JSON.stringify(bodyWith(document, location, text, known)) };
          }),
        );
      });
    }),
  );
}

/** A case to send: to which API, with which credentials. */
export interface SentUnstorableTextCase {
  basePath: string;
  testCase: UnstorableTextCase;
  /** The `Authorization` header (not sent to the token endpoint, which takes its client's). */
  authorization: string;
}

const TEXT_RULE_MESSAGES = new Set(
  UNSTORABLE_TEXTS.flatMap(({ text }) => {
    const problem = textProblem(text) ?? '';
    return [problem, `Member name: ${problem}`];
  }),
);

function sendCase(
  app: RequestListener,
  { basePath, testCase, authorization }: SentUnstorableTextCase,
) {
  const call = checkedRequest(basePath)(app)[testCase.method.toLowerCase() as 'post'](
    testCase.target,
  );
  const { body } = testCase;
  if (testCase.mediaType === 'application/x-www-form-urlencoded') {
    return call.set('Content-Type', testCase.mediaType).send(body as string);
  }
  void call.set('Authorization', authorization);
  if (typeof body === 'string') return call.set('Content-Type', testCase.mediaType).send(body);
  for (const [name, value] of Object.entries(body.fields)) {
    void call.field(name, value, { contentType: 'application/json' });
  }
  for (const name of body.files) void call.attach(name, Buffer.from('bytes'), 'file.txt');
  return call;
}

/** Why the answer is not the refusal a case must get, or undefined. */
function refusalProblem(
  testCase: UnstorableTextCase,
  status: number,
  body: unknown,
): string | undefined {
  const answer = body as {
    type?: string;
    errors?: { field: string; error: string }[];
    error?: string;
    error_description?: string;
  };
  if (status !== 400) return `answered ${String(status)} ${JSON.stringify(body)}`;
  if (testCase.mediaType === 'application/x-www-form-urlencoded') {
    // RFC 6749's error body, naming the parameter.
    return answer.error === 'invalid_request' &&
      (answer.error_description ?? '').startsWith(testCase.field)
      ? undefined
      : `not an invalid_request naming ${testCase.field}: ${JSON.stringify(body)}`;
  }
  const named = (answer.errors ?? []).filter(
    (error) => error.field === testCase.field || error.field.endsWith(`.${testCase.field}`),
  );
  if (answer.type !== 'Validation Error' || named.length === 0) {
    return `no error naming ${testCase.field}: ${JSON.stringify(body)}`;
  }
  if (testCase.freeText && !named.some((error) => TEXT_RULE_MESSAGES.has(error.error))) {
    return `not the text rule's message: ${JSON.stringify(named)}`;
  }
  return undefined;
}

/**
 * Sends each case, one at a time, and returns what went wrong: a case not answered 400 with the
 * spec's error body naming its field (the text rule's own message for free text; RFC 6749's
 * `invalid_request` at the token endpoint), or one that changed `stateDigest`. Every answer is
 * checked against the served document too.
 */
export async function unstorableTextFailures(
  app: RequestListener,
  cases: readonly SentUnstorableTextCase[],
  stateDigest: () => Promise<string>,
): Promise<string[]> {
  const failures: string[] = [];
  for (const sent of cases) {
    const before = await stateDigest();
    const response = await sendCase(app, sent);
    const problem = refusalProblem(sent.testCase, response.status, response.body);
    if (problem !== undefined) failures.push(`${sent.testCase.name}: ${problem}`);
    else if ((await stateDigest()) !== before) {
      failures.push(`${sent.testCase.name}: changed the stored state`);
    }
  }
  return failures;
}
