import { percentEncoded } from './percent-encoding.js';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { ApiRequestBody, JsonSchema } from './api-operations.js';
import { formText, jsonText } from './json-text.js';
import { oddJson, oddString } from './odd-values.js';
import { schemaValue, type SchemaValueOptions } from './schema-values.js';

/** A request body with the Content-Type that announces it (if any). */
export interface GeneratedBody {
  bytes: Buffer;
  contentType: string | undefined;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Ways to spoil a body that was valid JSON text. */
function spoiledJson(text: string): fc.Arbitrary<Buffer> {
  const bytes = utf8(text);
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant(bytes) },
    {
      weight: 1,
      arbitrary: fc.nat({ max: Math.max(0, bytes.length - 1) }).map((at) => bytes.subarray(0, at)),
    },
    { weight: 1, arbitrary: fc.constant(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])) },
    {
      weight: 1,
      // Bytes that are not UTF-8 inside the text (a string's quotes, or between tokens).
      arbitrary: fc
        .tuple(
          fc.nat({ max: bytes.length }),
          fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4]),
        )
        .map(([at, bad]) =>
          Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]),
        ),
    },
    { weight: 1, arbitrary: fc.constant(Buffer.from(text, 'utf16le')) },
    // Just over the 1 MiB JSON limit, as insignificant whitespace.
    {
      weight: 1,
      arbitrary: fc.constant(Buffer.concat([bytes, Buffer.alloc(1024 * 1024 + 1, 0x20)])),
    },
  );
}

const garbage: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  fc
    .constantFrom(
      '',
      'null',
      '[]',
      '"text"',
      '{',
      '{"a":1,}',
      "{'a':1}",
      'NaN',
      '1e400',
      '{"a":01}',
    )
    .map(utf8),
  oddJson.map((node) => utf8(jsonText(node))),
);

function jsonBody(body: ApiRequestBody, options: SchemaValueOptions): fc.Arbitrary<GeneratedBody> {
  return fc
    .oneof(
      {
        weight: 12,
        arbitrary: schemaValue(body.schema, options).chain((node) => spoiledJson(jsonText(node))),
      },
      { weight: 1, arbitrary: garbage },
    )
    .map((bytes) => ({ bytes, contentType: body.mediaType }));
}

function formBody(body: ApiRequestBody, options: SchemaValueOptions): fc.Arbitrary<GeneratedBody> {
  const properties = (body.schema.properties ?? {}) as Record<string, JsonSchema>;
  const fields = Object.entries(properties).map(([name, schema]) =>
    fc.record({
      name: fc.oneof({ weight: 8, arbitrary: fc.constant(name) }, fc.constant(`${name}[]`)),
      value: fc.oneof(
        {
          weight: 8,
          arbitrary: schemaValue(schema, options, name).map((node) =>
            percentEncoded(formText(node)),
          ),
        },
        fc.constantFrom('%FF', '%E0%A4%A', '%00', '', '+'),
      ),
      times: fc.oneof({ weight: 8, arbitrary: fc.constant(1) }, fc.constantFrom(0, 2)),
    }),
  );
  return fc
    .tuple(
      fc.tuple(...fields),
      fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, fc.constant(true)),
    )
    .map(([chosen, garbled]) => ({
      bytes: garbled
        ? utf8('%%%&&==&\u0000')
        : utf8(
            chosen
              .flatMap((field) =>
                Array.from({ length: field.times }, () => `${field.name}=${field.value}`),
              )
              .join('&'),
          ),
      contentType: body.mediaType,
    }));
}

interface Part {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  content: Buffer;
  /** Leave out the Content-Disposition header. */
  anonymous: boolean;
}

const oddFilename = fc.oneof(
  fc.constantFrom(
    '',
    '../../etc/passwd',
    'C:\\Windows\\win.ini',
    'a"b.txt',
    'ä ö ü 🧾.pdf',
    'x'.repeat(2_000),
    'name\u0000.txt',
    '.hidden',
    'file;name=x',
  ),
  oddString.map((text) => text.slice(0, 200)),
);

const oddPartType = fc.constantFrom(
  'application/octet-stream',
  'text/plain',
  'application/json',
  'application/json; charset=utf-16',
  'image/png',
  'multipart/mixed; boundary=x',
  '',
  'not a type',
);

function partsOf(body: ApiRequestBody, options: SchemaValueOptions): fc.Arbitrary<Part[]> {
  const properties = (body.schema.properties ?? {}) as Record<string, JsonSchema>;
  const parts = Object.entries(properties).map(([name, schema]): fc.Arbitrary<Part> => {
    const isFile = schema.format === 'binary' || schema.contentMediaType !== undefined;
    if (isFile) {
      return fc.record({
        name: fc.constant(name),
        filename: fc.oneof(
          { weight: 8, arbitrary: fc.constant('document.txt') },
          fc.constant(undefined),
          oddFilename,
        ),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/octet-stream') },
          oddPartType,
        ),
        content: fc.oneof(
          {
            weight: 12,
            arbitrary: fc
              .uint8Array({ minLength: 1, maxLength: 96 })
              .map((bytes) => Buffer.from(bytes)),
          },
          fc.constant(Buffer.alloc(0)),
          fc.constant(Buffer.alloc(200_000, 0x61)),
        ),
        anonymous: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, fc.constant(true)),
      });
    }
    const partType = body.partTypes[name];
    return fc.record({
      name: fc.constant(name),
      filename: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, oddFilename),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant(partType) },
        fc.constant(undefined),
        oddPartType,
      ),
      content: fc.oneof(
        {
          weight: 12,
          arbitrary: schemaValue(schema, options, name).map((node) =>
            utf8(partType === 'application/json' ? jsonText(node) : formText(node)),
          ),
        },
        garbage,
      ),
      anonymous: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, fc.constant(true)),
    });
  });
  const stranger: fc.Arbitrary<Part> = fc.record({
    name: fc.oneof(
      fc.constantFrom('extra', '', '__proto__', 'fileInput[]'),
      oddString.map((text) => text.slice(0, 50)),
    ),
    filename: fc.option(oddFilename, { nil: undefined }),
    contentType: fc.option(oddPartType, { nil: undefined }),
    content: fc.uint8Array({ maxLength: 32 }).map((bytes) => Buffer.from(bytes)),
    anonymous: fc.constant(false),
  });
  return fc
    .tuple(fc.tuple(...parts), fc.nat(9), fc.array(stranger, { maxLength: 1 }))
    .chain(([made, shape, strangers]) => {
      // Mostly every part in either order; else some missing, one twice, or strangers among them.
      if (shape < 5) return fc.constant(made);
      if (shape < 7) return fc.constant([...made].reverse());
      if (shape === 7) return fc.shuffledSubarray(made);
      if (shape === 8) return fc.constant([...made, ...made.slice(0, 1)]);
      return fc.shuffledSubarray([...made, ...strangers], { minLength: made.length });
    });
}

function quoted(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function multipartBytes(parts: readonly Part[], boundary: string, closed: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const lines = [`--${boundary}`];
    if (!part.anonymous) {
      const filename = part.filename === undefined ? '' : `; filename=${quoted(part.filename)}`;
      lines.push(`Content-Disposition: form-data; name=${quoted(part.name)}${filename}`);
    }
    if (part.contentType !== undefined) lines.push(`Content-Type: ${part.contentType}`);
    chunks.push(utf8(`${lines.join('\r\n')}\r\n\r\n`), part.content, utf8('\r\n'));
  }
  if (closed) chunks.push(utf8(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function multipartBody(
  body: ApiRequestBody,
  options: SchemaValueOptions,
): fc.Arbitrary<GeneratedBody> {
  return fc
    .record({
      parts: partsOf(body, options),
      boundary: fc.oneof(
        { weight: 8, arbitrary: fc.constant('fuzz-boundary-7MA4YWxk') },
        fc.constantFrom('x', 'a'.repeat(70), 'b=c;d'),
      ),
      closed: fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, fc.constant(false)),
      announced: fc.oneof(
        { weight: 12, arbitrary: fc.constant('same') },
        fc.constantFrom('other', 'missing', 'quoted'),
      ),
    })
    .map(({ parts, boundary, closed, announced }) => ({
      bytes: multipartBytes(parts, boundary, closed),
      contentType:
        announced === 'missing'
          ? body.mediaType
          : `${body.mediaType}; boundary=${announced === 'other' ? 'something-else' : announced === 'quoted' ? quoted(boundary) : boundary}`,
    }));
}

/** A body for one of the operation's documented media types, or none when it documents none. */
export function requestBody(
  bodies: readonly ApiRequestBody[],
  options: SchemaValueOptions,
): fc.Arbitrary<GeneratedBody> {
  const none: fc.Arbitrary<GeneratedBody> = fc.constant({
    bytes: Buffer.alloc(0),
    contentType: undefined,
  });
  if (bodies.length === 0) {
    // Operations without a body get one now and then all the same.
    return fc.oneof(
      { weight: 12, arbitrary: none },
      garbage.map((bytes) => ({ bytes, contentType: 'application/json' })),
    );
  }
  return fc.oneof(
    ...bodies.map((body): fc.WeightedArbitrary<GeneratedBody> => {
      const mediaType = body.mediaType.toLowerCase();
      if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
        return { weight: 12, arbitrary: jsonBody(body, options) };
      }
      if (mediaType === 'multipart/form-data')
        return { weight: 12, arbitrary: multipartBody(body, options) };
      if (mediaType === 'application/x-www-form-urlencoded') {
        return { weight: 12, arbitrary: formBody(body, options) };
      }
      throw new Error(`no generator for ${body.mediaType} bodies`);
    }),
    { weight: 1, arbitrary: none },
  );
}

/** The media types `requestBody` writes bodies for. */
export const GENERATED_MEDIA_TYPES = [
  'application/json',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
];

/** Content codings, and the body as it then travels. */
export const contentEncoding: fc.Arbitrary<{
  header: string | undefined;
  encode: (body: Buffer) => Buffer;
}> = fc.oneof(
  { weight: 40, arbitrary: fc.constant({ header: undefined, encode: (body: Buffer) => body }) },
  fc.constant({ header: 'gzip', encode: (body: Buffer) => gzipSync(body) }),
  fc.constantFrom('gzip', 'deflate', 'br', 'x-unknown', 'identity', 'gzip, gzip').map((header) => ({
    header,
    encode: (body: Buffer) => body,
  })),
);
