import { API_DOCS_DOCUMENT_PATH } from '@trustpoint/http';
import { percentEncoded } from './percent-encoding.js';
import fc from 'fast-check';
import type { ApiOperation, ApiParameter } from './api-operations.js';
import { formText } from './json-text.js';
import { oddPathSegment, oddQueryValue } from './odd-values.js';
import type { RawRequest } from '@trustpoint/test-doubles/raw-exchange';
import { contentEncoding, requestBody, type GeneratedBody } from './request-body.js';
import { schemaValue, type KnownValues, type SchemaValueOptions } from './schema-values.js';

/** An `Authorization` header value (or none) a case may send, and how often. */
export interface FuzzAuthorization {
  weight: number;
  /** The header value; undefined sends none. */
  value: string | undefined;
}

export interface FuzzRequestOptions {
  /** Where the server listens: the Host header. */
  port: number;
  known: KnownValues;
  /** Real credentials (most weight on a user with credits); odd forms are added. */
  authorizations: readonly FuzzAuthorization[];
  /** One value in this many is odd. */
  oddOneIn: number;
}

/** One generated request: the operation it aims at and the exact bytes sent. */
export class FuzzRequest {
  constructor(
    readonly operation: string,
    readonly method: string,
    readonly target: string,
    readonly headers: readonly (readonly [string, string])[],
    readonly body: Buffer,
    readonly endAfterWriting: boolean,
    /** A HEAD request sent first on the same connection; undefined for a fresh connection. */
    readonly warmUp?: { path: string; host: string },
  ) {}

  raw(): RawRequest {
    const lines = [
      `${this.method} ${this.target} HTTP/1.1`,
      ...this.headers.map(([name, value]) => `${name}: ${value}`),
    ];
    return {
      head: Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
      body: this.body,
      endAfterWriting: this.endAfterWriting,
      headMethod: this.method === 'HEAD',
      ...(this.warmUp === undefined
        ? {}
        : {
            warmUp: Buffer.from(
              `HEAD ${this.warmUp.path} HTTP/1.1\r\nHost: ${this.warmUp.host}\r\n\r\n`,
              'latin1',
            ),
          }),
    };
  }

  /** The request as sent, escaped; long bodies and lines cut with their full length said. */
  toString(): string {
    const cut = (text: string, max: number) =>
      text.length <= max
        ? text
        : `${text.slice(0, max)}... (${String(text.length)} characters in all)`;
    const head = this.raw().head.toString('latin1');
    const body =
      this.body.length === 0
        ? ''
        : `\n  body (${String(this.body.length)} bytes, latin1): ${JSON.stringify(cut(this.body.toString('latin1'), 1_000))}`;
    const reused =
      this.warmUp === undefined
        ? ''
        : `\n  (sent on a connection that first answered HEAD ${this.warmUp.path})`;
    return `[${this.operation}] ${JSON.stringify(cut(head, 4_000))}${body}${this.endAfterWriting ? '\n  (then half-closed)' : ''}${reused}`;
  }

  [fc.toStringMethod](): string {
    return this.toString();
  }
}

function pathSegment(parameter: ApiParameter, values: SchemaValueOptions): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: (values.oddOneIn - 1) * 2,
      arbitrary: schemaValue(parameter.schema, { ...values, oddOneIn: 0 }, parameter.name).map(
        (node) => percentEncoded(formText(node)),
      ),
    },
    { weight: 1, arbitrary: oddPathSegment },
    {
      weight: 1,
      arbitrary: schemaValue(parameter.schema, values, parameter.name).map((node) =>
        percentEncoded(formText(node)),
      ),
    },
  );
}

function queryPairs(parameter: ApiParameter, values: SchemaValueOptions): fc.Arbitrary<string[]> {
  const value = fc.oneof(
    {
      weight: values.oddOneIn * 2,
      arbitrary: schemaValue(parameter.schema, { ...values, oddOneIn: 0 }, parameter.name).map(
        (node) => percentEncoded(formText(node)),
      ),
    },
    { weight: 2, arbitrary: oddQueryValue },
  );
  const name = percentEncoded(parameter.name);
  return fc
    .record({
      present: parameter.required
        ? fc.oneof(
            { weight: values.oddOneIn * 2, arbitrary: fc.constant(true) },
            fc.constant(false),
          )
        : fc.boolean(),
      values: fc.oneof(
        { weight: values.oddOneIn * 2, arbitrary: fc.array(value, { minLength: 1, maxLength: 1 }) },
        fc.array(value, { minLength: 2, maxLength: 3 }),
      ),
      key: fc.oneof(
        { weight: values.oddOneIn * 3, arbitrary: fc.constant(name) },
        fc.constantFrom(
          `${name}[]`,
          `${name}[0]`,
          `${name}[a][b]`,
          name.toUpperCase(),
          `${name}%00`,
        ),
      ),
    })
    .map(({ present, values: chosen, key }) =>
      present ? chosen.map((item) => `${key}=${item}`) : [],
    );
}

function headerValue(
  parameter: ApiParameter,
  values: SchemaValueOptions,
): fc.Arbitrary<[string, string][]> {
  const printable = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 2_000);
  return fc
    .record({
      present: parameter.required ? fc.constant(true) : fc.boolean(),
      value: schemaValue(parameter.schema, values, parameter.name).map((node) =>
        printable(formText(node)),
      ),
    })
    .map(({ present, value }) => (present ? [[parameter.name, value]] : []));
}

const ODD_AUTHORIZATIONS = [
  'Bearer',
  'Bearer ',
  'Bearer a.b.c',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
  `Bearer ${'x'.repeat(6_000)}`,
  'Basic Zm9vOmJhcg==',
  'Basic',
  'Basic %%%',
  'Token abc',
  'bearer',
  'Negotiate abc',
];

function authorizationHeaders(options: FuzzRequestOptions): fc.Arbitrary<[string, string][]> {
  const real = options.authorizations.map((authorization) => ({
    weight: authorization.weight,
    arbitrary: fc.constant(authorization.value),
  }));
  const value = fc.oneof(...real, { weight: 2, arbitrary: fc.constantFrom(...ODD_AUTHORIZATIONS) });
  return fc
    .record({
      first: value,
      twice: fc.oneof({ weight: 40, arbitrary: fc.constant(undefined) }, value),
      lowerScheme: fc.oneof({ weight: 30, arbitrary: fc.constant(false) }, fc.constant(true)),
    })
    .map(({ first, twice, lowerScheme }) => {
      const headers: [string, string][] = [];
      if (first !== undefined)
        headers.push(['Authorization', lowerScheme ? first.replace(/^Bearer /, 'bearer ') : first]);
      if (twice !== undefined) headers.push(['Authorization', twice]);
      return headers;
    });
}

const ODD_CONTENT_TYPES = [
  'text/plain',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="UTF-8"',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'application/octet-stream',
  '',
  '*/*',
  'application/json, text/plain',
  `application/json; x=${'y'.repeat(3_000)}`,
];

const ODD_EXTRA_HEADERS: [string, string][] = [
  ['Accept', 'text/html'],
  ['Accept', 'application/xml'],
  ['Accept', 'application/pdf'],
  ['Accept', ''],
  ['Accept', ';;;q=x'],
  ['Accept-Charset', 'utf-16'],
  ['Accept-Encoding', 'gzip, br'],
  ['Origin', 'https://evil.example'],
  ['Access-Control-Request-Method', 'DELETE'],
  ['X-Forwarded-For', 'not an address, 999.1.1.1'],
  ['X-Forwarded-Proto', 'gopher'],
  ['X-Request-Id', 'x'.repeat(1_000)],
  ['Range', 'bytes=0-0'],
  ['Range', 'bytes=5-1'],
  ['Range', 'bytes=0-1,2-3,4-5'],
  ['If-None-Match', '*'],
  ['If-Modified-Since', 'yesterday'],
  ['Cookie', 'session=x; __proto__=y'],
  ['Expect', '100-continue'],
  ['Prefer', 'respond-async'],
  ['Prefer', 'wait=1'],
  ['Prefer', 'wait=-1, respond-async'],
  ['Prefer', `wait=${'9'.repeat(30)}`],
];

type Framing =
  | 'length'
  | 'none'
  | 'chunked'
  | 'chunkedAndLength'
  | 'lengthTwice'
  | 'lengthsDiffer'
  | 'lengthShort'
  | 'lengthLong'
  | 'lengthNotANumber'
  | 'chunkedNotChunked'
  | 'gzipChunked';

const framing: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 60, arbitrary: fc.constant('length' as const) },
  { weight: 6, arbitrary: fc.constant('chunked' as const) },
  fc.constantFrom<Framing>(
    'none',
    'chunkedAndLength',
    'lengthTwice',
    'lengthsDiffer',
    'lengthShort',
    'lengthLong',
    'lengthNotANumber',
    'chunkedNotChunked',
    'gzipChunked',
  ),
);

function chunked(body: Buffer, pieces: number): Buffer {
  const chunks: Buffer[] = [];
  const size = Math.max(1, Math.ceil(body.length / pieces));
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(chunks);
}

/** The framing headers and the bytes that travel, for a body sent with `kind` framing. */
function framed(
  kind: Framing,
  body: Buffer,
): { headers: [string, string][]; bytes: Buffer; endAfterWriting: boolean } {
  const length = String(body.length);
  switch (kind) {
    case 'length':
      return {
        headers: body.length === 0 ? [] : [['Content-Length', length]],
        bytes: body,
        endAfterWriting: false,
      };
    case 'none':
      return { headers: [], bytes: body, endAfterWriting: false };
    case 'chunked':
      return {
        headers: [['Transfer-Encoding', 'chunked']],
        bytes: chunked(body, 3),
        endAfterWriting: false,
      };
    case 'chunkedAndLength':
      return {
        headers: [
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', length],
        ],
        bytes: chunked(body, 2),
        endAfterWriting: false,
      };
    case 'lengthTwice':
      return {
        headers: [
          ['Content-Length', length],
          ['Content-Length', length],
        ],
        bytes: body,
        endAfterWriting: false,
      };
    case 'lengthsDiffer':
      return {
        headers: [
          ['Content-Length', length],
          ['Content-Length', String(body.length + 1)],
        ],
        bytes: body,
        endAfterWriting: false,
      };
    case 'lengthShort':
      return {
        headers: [['Content-Length', String(Math.max(0, body.length - 1))]],
        bytes: body,
        endAfterWriting: false,
      };
    case 'lengthLong':
      // The server would wait for the missing bytes: the client gives up instead.
      return {
        headers: [['Content-Length', String(body.length + 7)]],
        bytes: body,
        endAfterWriting: true,
      };
    case 'lengthNotANumber':
      return { headers: [['Content-Length', `+${length}`]], bytes: body, endAfterWriting: false };
    case 'chunkedNotChunked':
      // Without a body the server waits for the first chunk, and a body of hex digits alone (a
      // JSON number such as 1e400) reads as a chunk size whose line has not ended yet: the server
      // waits for the rest, as it must, so the client gives up instead.
      return {
        headers: [['Transfer-Encoding', 'chunked']],
        bytes: body,
        endAfterWriting: /^[0-9A-Fa-f]*$/.test(body.toString('latin1')),
      };
    case 'gzipChunked':
      return {
        headers: [['Transfer-Encoding', 'gzip, chunked']],
        bytes: chunked(body, 1),
        endAfterWriting: false,
      };
  }
}

const OTHER_METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PROPFIND',
  'TRACE',
];

/** Requests aimed at `operation`: valid ones most of the time, mutated in every part otherwise. */
export function fuzzRequest(
  operation: ApiOperation,
  options: FuzzRequestOptions,
): fc.Arbitrary<FuzzRequest> {
  const values: SchemaValueOptions = {
    document: operation.document,
    known: options.known,
    oddOneIn: options.oddOneIn,
  };
  const odd = options.oddOneIn;
  const byIn = (where: ApiParameter['in']) =>
    operation.parameters.filter((parameter) => parameter.in === where);
  const pathParameters = byIn('path');
  const segments = fc.tuple(...pathParameters.map((parameter) => pathSegment(parameter, values)));
  const query = fc
    .tuple(
      fc.tuple(...byIn('query').map((parameter) => queryPairs(parameter, values))),
      fc.oneof(
        { weight: odd * 2, arbitrary: fc.constant([] as string[]) },
        fc.array(
          fc
            .tuple(
              fc.constantFrom('unknown', 'a[]', '__proto__', '', 'a[b][c][d][e][f]'),
              oddQueryValue,
            )
            .map(([key, value]) => `${key}=${value}`),
          { maxLength: 3 },
        ),
      ),
    )
    .map(([pairs, extra]) => [...pairs.flat(), ...extra]);
  const method = fc.oneof(
    { weight: odd * 4, arbitrary: fc.constant(operation.method) },
    fc.constantFrom(...OTHER_METHODS),
  );
  const pathShape = fc.oneof(
    { weight: odd * 6, arbitrary: fc.constant('as documented' as const) },
    fc.constantFrom('trailing slash' as const, 'double slash' as const, 'extra segment' as const),
  );
  const headerParameters = fc.tuple(
    ...[...byIn('header'), ...byIn('cookie')].map((parameter) => headerValue(parameter, values)),
  );
  const contentType = fc.oneof(
    { weight: odd * 3, arbitrary: fc.constant(undefined) },
    fc.constantFrom(...ODD_CONTENT_TYPES, 'none'),
  );
  const extraHeaders = fc.oneof(
    { weight: odd, arbitrary: fc.constant([] as [string, string][]) },
    fc.subarray(ODD_EXTRA_HEADERS, { minLength: 1, maxLength: 2 }),
  );
  return fc
    .record({
      segments,
      query,
      method,
      pathShape,
      body: requestBody(operation.bodies, values),
      encoding: contentEncoding,
      framing,
      contentType,
      authorization: authorizationHeaders(options),
      headerParameters,
      extraHeaders,
      host: fc.oneof(
        { weight: odd * 8, arbitrary: fc.constant('as usual' as const) },
        fc.constantFrom('missing' as const, 'empty' as const, 'twice' as const),
      ),
      // One case in four is the second request of a kept-alive connection.
      reused: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
    })
    .map((parts) => {
      let index = 0;
      let path =
        operation.basePath +
        operation.path.replace(/\{[^}]+\}/g, () => parts.segments[index++] ?? '');
      if (parts.pathShape === 'trailing slash') path += '/';
      if (parts.pathShape === 'double slash') path = path.replace('/', '//');
      if (parts.pathShape === 'extra segment') path += '/extra';
      const target = parts.query.length === 0 ? path : `${path}?${parts.query.join('&')}`;
      const body: GeneratedBody = parts.body;
      const encoded = parts.encoding.encode(body.bytes);
      const travel = framed(parts.framing, encoded);
      const host = `127.0.0.1:${String(options.port)}`;
      const hosts: Record<typeof parts.host, [string, string][]> = {
        'as usual': [['Host', host]],
        missing: [],
        empty: [['Host', '']],
        twice: [
          ['Host', host],
          ['Host', 'evil.example'],
        ],
      };
      const headers: [string, string][] = [
        ...hosts[parts.host],
        ['Connection', 'close'],
        ...parts.authorization,
      ];
      const announced =
        parts.contentType === undefined
          ? body.contentType
          : parts.contentType === 'none'
            ? undefined
            : parts.contentType;
      if (announced !== undefined) headers.push(['Content-Type', announced]);
      if (parts.encoding.header !== undefined)
        headers.push(['Content-Encoding', parts.encoding.header]);
      headers.push(...travel.headers, ...parts.headerParameters.flat(), ...parts.extraHeaders);
      return new FuzzRequest(
        operation.name,
        parts.method,
        target,
        headers,
        travel.bytes,
        travel.endAfterWriting,
        parts.reused ? { path: `${operation.basePath}${API_DOCS_DOCUMENT_PATH}`, host } : undefined,
      );
    });
}
