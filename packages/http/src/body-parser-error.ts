import type { FieldError } from '@trustpoint/domain';

/** What body-parser (behind `express.json`) attaches to the errors it passes on. */
interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    error instanceof Error &&
    'type' in error &&
    typeof error.type === 'string' &&
    'status' in error &&
    typeof error.status === 'number'
  );
}

// body-parser's own messages are not for callers (they quote parser internals), so each client
// mistake gets a plain sentence on the `body` field.
const CLIENT_MISTAKES: Readonly<Record<string, string>> = {
  'entity.parse.failed': 'Body is not valid JSON',
  'entity.not.object': 'Body must be a JSON object',
  'encoding.unsupported': 'Content encoding is not supported',
  'charset.unsupported': 'Charset is not supported, use utf-8',
  'encoding.invalid': 'Body is not valid UTF-8',
  'request.size.invalid': 'Body length does not match Content-Length',
  // The client closed the connection before its body ended: its mistake, never the service's.
  'request.aborted': 'The request was aborted before its body arrived',
};

/**
 * A body whose Content-Encoding (gzip, deflate, br) does not decompress: body-parser passes the
 * decompressor's own error (a numeric `errno`, no `type`) on with status 400.
 */
function isUndecodableBody(error: unknown): boolean {
  return (
    error instanceof Error &&
    'status' in error &&
    error.status === 400 &&
    !('type' in error) &&
    'errno' in error &&
    typeof error.errno === 'number'
  );
}

export type BodyProblem =
  { kind: 'tooLarge'; hint: FieldError } | { kind: 'invalid'; error: FieldError };

/** `1048576` as `1 MiB`, `100000` as `100000 bytes`. */
function sizeText(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${String(mebibytes)} MiB` : `${String(bytes)} bytes`;
}

/** How a body-parser failure is answered, or `undefined` when it is not one (or not the caller's fault). */
export function bodyProblem(
  error: unknown,
  /** The request's Content-Type: the size limit is said of what was sent. */
  contentType?: string,
  /** Whether the route takes files as multipart instead (certificate creation): then it says so. */
  takesFiles = false,
): BodyProblem | undefined {
  if (isUndecodableBody(error)) {
    return {
      kind: 'invalid',
      error: { field: 'body', error: 'Body does not decode with its Content-Encoding' },
    };
  }
  if (!isBodyParserError(error)) return undefined;
  if (error.type === 'entity.too.large') {
    const limit = 'limit' in error && typeof error.limit === 'number' ? error.limit : undefined;
    const size = limit === undefined ? 'the configured limit' : sizeText(limit);
    return {
      kind: 'tooLarge',
      hint: {
        field: 'body',
        error: !/^\s*application\/json\b/i.test(contentType ?? '')
          ? `The body may be at most ${size}`
          : takesFiles
            ? `A JSON body may be at most ${size}; send files as multipart (type=file)`
            : `A JSON body may be at most ${size}`,
      },
    };
  }
  const message = CLIENT_MISTAKES[error.type];
  return message === undefined
    ? undefined
    : { kind: 'invalid', error: { field: 'body', error: message } };
}
