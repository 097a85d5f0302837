import fc from 'fast-check';
import type { OpenApiDocument } from '../openapi/openapi-response-checker.js';
import { dereference, type JsonSchema } from './api-operations.js';
import { jsonNodeOf, jsonString, jsonToken, type JsonNode } from './json-text.js';
import { oddJson, oddKey } from './odd-values.js';

/** Values the service knows (ids it issued, its network), by parameter or member name. */
export type KnownValues = Readonly<Record<string, readonly string[]>>;

export interface SchemaValueOptions {
  document: OpenApiDocument;
  known: KnownValues;
  /** One node in this many is replaced by an odd value, members dropped or added. 0: none. */
  oddOneIn: number;
}

const MAX_DEPTH = 4;

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function typesOf(schema: JsonSchema): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((item): item is string => typeof item === 'string');
  if (schema.properties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  return [];
}

function stringValue(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = Math.max(0, numberOr(schema.minLength, 0));
  const maxLength = Math.min(numberOr(schema.maxLength, 40), minLength + 40);
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter(
          (text) => text.length >= minLength && text.length <= numberOr(schema.maxLength, Infinity),
        );
    } catch {
      // A pattern fast-check cannot invert: plain text below.
    }
  }
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'uri':
    case 'url':
      return fc.constantFrom(
        'https://127.0.0.1:9/hook',
        'http://127.0.0.1:9/x',
        'https://example.invalid/doc',
        'ftp://example.invalid/',
        'not a url',
      );
    case 'email':
      return fc.constantFrom('a@example.com', 'x@y', '@');
    default:
      return fc.string({ minLength, maxLength });
  }
}

function integerValue(schema: JsonSchema): fc.Arbitrary<number> {
  const exclusiveMin = schema.exclusiveMinimum;
  const exclusiveMax = schema.exclusiveMaximum;
  const min = Math.max(
    typeof exclusiveMin === 'number' ? exclusiveMin + 1 : numberOr(schema.minimum, -1_000),
    Number.MIN_SAFE_INTEGER,
  );
  const max = Math.min(
    typeof exclusiveMax === 'number' ? exclusiveMax - 1 : numberOr(schema.maximum, min + 1_000_000),
    Number.MAX_SAFE_INTEGER,
  );
  return fc.oneof(
    fc.integer({
      min: Math.max(min, -1_000),
      max: Math.max(Math.min(max, 1_000), Math.max(min, -1_000)),
    }),
    fc.constantFrom(min, max),
  );
}

/**
 * Valid-looking JSON for `schema` (enums, examples, formats, bounds, required members and the
 * service's own ids), with one node in `oddOneIn` swapped for an odd value and, as often,
 * required members dropped or odd members added.
 */
export function schemaValue(
  schema: JsonSchema,
  options: SchemaValueOptions,
  name?: string,
  depth = 0,
): fc.Arbitrary<JsonNode> {
  const valid = validValue(dereference(options.document, schema), options, name, depth);
  if (options.oddOneIn <= 0) return valid;
  return fc.oneof(
    { weight: options.oddOneIn - 1, arbitrary: valid },
    { weight: 1, arbitrary: oddJson },
  );
}

function validValue(
  schema: JsonSchema,
  options: SchemaValueOptions,
  name: string | undefined,
  depth: number,
): fc.Arbitrary<JsonNode> {
  const alternatives: fc.WeightedArbitrary<JsonNode>[] = [];
  const known = name === undefined ? undefined : options.known[name];
  if (known !== undefined && known.length > 0) {
    alternatives.push({ weight: 4, arbitrary: fc.constantFrom(...known).map(jsonString) });
  }
  if (schema.example !== undefined) {
    alternatives.push({ weight: 2, arbitrary: fc.constant(jsonNodeOf(schema.example)) });
  }
  alternatives.push({ weight: 4, arbitrary: shapedValue(schema, options, depth) });
  return fc.oneof(...alternatives);
}

function shapedValue(
  schema: JsonSchema,
  options: SchemaValueOptions,
  depth: number,
): fc.Arbitrary<JsonNode> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return fc.constantFrom(...(schema.enum as unknown[])).map(jsonNodeOf);
  }
  if ('const' in schema) return fc.constant(jsonNodeOf(schema.const));
  const variants = [schema.oneOf, schema.anyOf].find(Array.isArray) as unknown[] | undefined;
  if (variants && variants.length > 0) {
    return fc.oneof(
      ...variants.map((variant) => schemaValue(variant as JsonSchema, options, undefined, depth)),
    );
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schemaValue(schema.allOf[0] as JsonSchema, options, undefined, depth);
  }
  const types = typesOf(schema);
  if (types.length === 0) return depth >= MAX_DEPTH ? fc.constant(jsonToken('null')) : freeJson;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<JsonNode> => {
      switch (type) {
        case 'string':
          return withUnstorableText(stringValue(schema)).map(jsonString);
        case 'integer':
          return integerValue(schema).map((value) => jsonToken(String(value)));
        case 'number':
          return fc
            .double({
              noNaN: true,
              noDefaultInfinity: true,
              min: numberOr(schema.minimum, -1e6),
              max: numberOr(schema.maximum, 1e15),
            })
            .map((value) => jsonToken(JSON.stringify(value)));
        case 'boolean':
          return fc.boolean().map((value) => jsonToken(String(value)));
        case 'null':
          return fc.constant(jsonToken('null'));
        case 'array':
          return arrayValue(schema, options, depth);
        case 'object':
          return objectValue(schema, options, depth);
        default:
          return freeJson;
      }
    }),
  );
}

/**
 * Text the shared text rule refuses (U+0000, lone surrogates), put into an otherwise valid value:
 * a body whose only fault is such text is the case that found 500s and silent changes, and odd
 * values replacing whole members rarely make one (every other member must stay valid too).
 */
const unstorableText = fc.constantFrom('\u0000', '\ud800', '\udfff');

/** `valid` text, one time in ten with refused text at its start, middle or end. */
function withUnstorableText(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 9, arbitrary: valid },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, unstorableText, fc.nat()).map(([text, bad, at]) => {
        const index = at % (text.length + 1);
        return `${text.slice(0, index)}${bad}${text.slice(index)}`;
      }),
    },
  );
}

/** Free-form JSON (the documents' `JsonObject` content): small, ordinary values, at times with refused text in a member's name or value. */
const freeJson: fc.Arbitrary<JsonNode> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.jsonValue({ maxDepth: 3, depthSize: 'small' }).map((value) => jsonNodeOf(value)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(withUnstorableText(fc.string({ maxLength: 8 })), unstorableText, fc.boolean())
      .map(([text, bad, inName]): JsonNode => ({
        kind: 'object',
        members: [inName ? [`k${bad}`, jsonString(text)] : ['k', jsonString(`${text}${bad}`)]],
      })),
  },
);

function arrayValue(
  schema: JsonSchema,
  options: SchemaValueOptions,
  depth: number,
): fc.Arbitrary<JsonNode> {
  if (depth >= MAX_DEPTH) return fc.constant({ kind: 'array', items: [] });
  const minLength = numberOr(schema.minItems, 0);
  const maxLength = Math.min(numberOr(schema.maxItems, 3), minLength + 3);
  return fc
    .array(schemaValue((schema.items ?? {}) as JsonSchema, options, undefined, depth + 1), {
      minLength,
      maxLength,
    })
    .map((items): JsonNode => ({ kind: 'array', items }));
}

function objectValue(
  schema: JsonSchema,
  options: SchemaValueOptions,
  depth: number,
): fc.Arbitrary<JsonNode> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    return depth >= MAX_DEPTH ? fc.constant({ kind: 'object', members: [] }) : freeJson;
  }
  const odd = options.oddOneIn > 0;
  // Required members are kept but for one case in `oddOneIn`; optional ones half the time.
  const keepRequired = odd
    ? fc.oneof({ weight: options.oddOneIn * 2, arbitrary: fc.constant(true) }, fc.constant(false))
    : fc.constant(true);
  const members = names.map((name) =>
    fc.record({
      keep: required.has(name) ? keepRequired : fc.boolean(),
      value: schemaValue(properties[name] ?? {}, options, name, depth + 1),
    }),
  );
  const extras = odd
    ? fc.oneof(
        { weight: options.oddOneIn, arbitrary: fc.constant([] as (readonly [string, JsonNode])[]) },
        fc.array(fc.tuple(fc.oneof(oddKey, fc.constantFrom(...names)), oddJson), {
          minLength: 1,
          maxLength: 2,
        }),
      )
    : fc.constant([] as (readonly [string, JsonNode])[]);
  return fc.tuple(fc.tuple(...members), extras).map(([chosen, added]): JsonNode => ({
    kind: 'object',
    members: [
      ...chosen.flatMap((member, index) =>
        member.keep ? [[names[index] ?? '', member.value] as const] : [],
      ),
      ...added,
    ],
  }));
}
