import { connect } from 'node:net';

/** One request as bytes on the wire, exactly as sent. */
export interface RawRequest {
  /** Request line and headers, each line ending in CRLF, with the blank line. */
  head: Buffer;
  body: Buffer;
  /**
   * Half-close the connection once everything is written: for a request whose Content-Length
   * promises more than it sends, so the server sees the end instead of waiting for the rest.
   */
  endAfterWriting: boolean;
  /** A HEAD request: the answer has no body whatever its headers say. */
  headMethod: boolean;
  /**
   * A HEAD request sent first on the same connection, its answer read and dropped, so the request
   * is the second on a kept-alive connection (where Node's parser state and the server's answers to
   * what it refuses differ from a fresh connection's).
   */
  warmUp?: Buffer;
}

/** The first complete answer to a request. */
export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/** The connection ended (or went silent) before a complete HTTP answer arrived. */
export class IncompleteAnswerError extends Error {
  constructor(
    message: string,
    readonly received: Buffer,
  ) {
    super(`${message}; received ${String(received.length)} bytes: ${preview(received)}`);
    this.name = 'IncompleteAnswerError';
  }
}

function preview(bytes: Buffer): string {
  const text = bytes.subarray(0, 400).toString('latin1');
  return JSON.stringify(text) + (bytes.length > 400 ? '...' : '');
}

const HEAD_END = Buffer.from('\r\n\r\n');

interface ParsedHead {
  status: number;
  headers: Record<string, string>;
  bodyStart: number;
}

function parseHead(bytes: Buffer): ParsedHead | undefined {
  const end = bytes.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match?.[1]) throw new IncompleteAnswerError(`not an HTTP status line`, bytes);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new IncompleteAnswerError(`malformed header line`, bytes);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name] ?? ''}, ${value}` : value;
  }
  return { status: Number(match[1]), headers, bodyStart: end + HEAD_END.length };
}

/** What follows the interim (1xx) answers at the start of `bytes`, such as `100 Continue`. */
function afterInterimAnswers(bytes: Buffer): Buffer {
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf(HEAD_END);
    if (end < 0 || !/^HTTP\/1\.[01] 1\d\d/.test(rest.subarray(0, 12).toString('latin1'))) {
      return rest;
    }
    rest = rest.subarray(end + HEAD_END.length);
  }
}

/** The body of a chunked message, or undefined while it is incomplete. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isInteger(size) || size < 0) {
      throw new IncompleteAnswerError('malformed chunk size', bytes);
    }
    if (size === 0) {
      // Trailers end with an empty line.
      const trailersEnd = bytes.indexOf(HEAD_END, lineEnd);
      const emptyTrailers = bytes.subarray(lineEnd, lineEnd + 4).equals(HEAD_END);
      return emptyTrailers || trailersEnd >= 0 ? Buffer.concat(parts) : undefined;
    }
    const dataStart = lineEnd + 2;
    if (bytes.length < dataStart + size + 2) return undefined;
    parts.push(bytes.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

/**
 * The first final answer in `bytes` (1xx interim answers skipped), `undefined` while incomplete.
 * `closed` says the server has closed the connection: a body without length ends there.
 */
export function parseResponse(
  bytes: Buffer,
  headRequest: boolean,
  closed: boolean,
): RawResponse | undefined {
  let rest = bytes;
  for (;;) {
    const head = parseHead(rest);
    if (!head) return undefined;
    const after = rest.subarray(head.bodyStart);
    if (head.status >= 100 && head.status < 200) {
      rest = after;
      continue;
    }
    const { status, headers } = head;
    if (headRequest || status === 204 || status === 304) {
      return { status, headers, body: Buffer.alloc(0) };
    }
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const body = dechunk(after);
      return body && { status, headers, body };
    }
    const length = headers['content-length'];
    if (length !== undefined) {
      const size = Number(length);
      if (!Number.isInteger(size) || size < 0) {
        throw new IncompleteAnswerError(`invalid Content-Length ${length}`, bytes);
      }
      return after.length >= size ? { status, headers, body: after.subarray(0, size) } : undefined;
    }
    return closed ? { status, headers, body: after } : undefined;
  }
}

/**
 * Sends `request` over a new connection to `127.0.0.1:port` (after its warm-up request, if any)
 * and resolves with the first complete
 * answer. Rejects with an `IncompleteAnswerError` when the connection closes or resets before a
 * complete answer, or when none has come after `timeoutMs`. A request the client half-closed
 * (`endAfterWriting`) before sending all it promised is abandoned: a server may close it without
 * an answer, which resolves `undefined`.
 */
export function exchange(
  port: number,
  request: RawRequest,
  timeoutMs: number,
): Promise<RawResponse | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    // Bytes before `answerStart` are the warm-up's answer; undefined while it is awaited.
    let answerStart: number | undefined = request.warmUp ? undefined : 0;
    const received = () => Buffer.concat(chunks).subarray(answerStart ?? 0);
    const sendRequest = () => {
      socket.write(request.head);
      // A write after the server has answered and closed fails with EPIPE: the answer is still read.
      if (request.body.length > 0) socket.write(request.body);
      if (request.endAfterWriting) socket.end();
    };
    const warmedUp = (): boolean => {
      const all = Buffer.concat(chunks);
      const answer = parseResponse(all, true, false);
      if (!answer) return false;
      if (answer.status >= 400 || /close/i.test(answer.headers.connection ?? '')) {
        throw new IncompleteAnswerError(
          `the warm-up request was answered ${String(answer.status)} (${answer.headers.connection ?? 'keep-alive'})`,
          all,
        );
      }
      answerStart = all.length;
      sendRequest();
      return true;
    };
    const tryParse = (closed: boolean): boolean => {
      try {
        if (answerStart === undefined && !warmedUp()) {
          if (!closed) return false;
          throw new IncompleteAnswerError('the warm-up request got no answer', received());
        }
        const response = parseResponse(received(), request.headMethod, closed);
        if (!response) return false;
        settle(() => {
          resolve(response);
        });
      } catch (error) {
        settle(() => {
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      }
      return true;
    };
    const timer = setTimeout(() => {
      settle(() => {
        reject(
          new IncompleteAnswerError(`no complete answer after ${String(timeoutMs)} ms`, received()),
        );
      });
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tryParse(false);
    });
    socket.once('end', () => {
      if (request.endAfterWriting && afterInterimAnswers(received()).length === 0) {
        settle(() => {
          resolve(undefined);
        });
        return;
      }
      if (!tryParse(true)) {
        settle(() => {
          reject(
            new IncompleteAnswerError('the server closed the connection mid-answer', received()),
          );
        });
      }
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      // A reset after a complete answer was parsed is harmless; before one it drops the request.
      if (tryParse(true)) return;
      settle(() => {
        reject(
          new IncompleteAnswerError(
            `connection failed (${error.code ?? error.message})`,
            received(),
          ),
        );
      });
    });
    socket.once('connect', () => {
      if (request.warmUp) socket.write(request.warmUp);
      else sendRequest();
    });
  });
}
