import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { toErrorBody, type ErrorBody } from '@trustpoint/domain';

/**
 * The 431 for a request line and headers over Node's limit (16 KiB by default). The catalogue has
 * no 431, so this body is a local addition of the same shape (spec 7.1), like the 429 for flooding.
 */
export const HEADERS_TOO_LARGE_BODY: Readonly<ErrorBody> = Object.freeze({
  statusCode: 431,
  type: 'Request Header Fields Too Large Error',
  message: 'The request line and headers exceed the 16 KiB limit, shorten the URL or the headers',
});

/** How long a refused client has to read the answer before its connection is destroyed. */
const LINGER_MS = 2_000;

function answer(status: string, body: ErrorBody): string {
  const text = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${String(Buffer.byteLength(text))}\r\n` +
    'Connection: close\r\n\r\n' +
    text
  );
}

function answerFor(code: string | undefined): string {
  switch (code) {
    // A timeout keeps Node's bodiless answer: the client is not reading, or too slow to matter.
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
    case 'HPE_HEADER_OVERFLOW':
      return answer('431 Request Header Fields Too Large', HEADERS_TOO_LARGE_BODY);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return answer('413 Payload Too Large', toErrorBody('payloadTooLarge'));
    default:
      return answer(
        '400 Bad Request',
        toErrorBody('validation', {
          errors: [{ field: 'request', error: 'Not a well-formed HTTP/1.1 request' }],
        }),
      );
  }
}

/** The response Node has bound to the socket (`_httpMessage`, which Node's own code reads). */
function boundResponse(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/** Sockets already answered: the parser keeps reporting the same error for every later byte. */
const answered = new WeakSet<Socket>();

/**
 * Writes `text` and closes gracefully: a FIN after the answer, the client's further bytes read and
 * dropped, the socket destroyed when the client closes or after `LINGER_MS`. Destroying at once
 * with bytes unread (the rest of a 100 KB URL) makes the kernel send a reset, which can discard
 * the answer before the client reads it.
 */
function answerAndClose(socket: Socket, text: string): void {
  answered.add(socket);
  socket.end(text);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * The server's `clientError` listener. A request Node's parser refuses before any app sees it
 * (Content-Length and Transfer-Encoding both, two lengths, a length that is not a number, a
 * chunked body that is not chunked, an unknown method) is answered the spec's 400 body instead of
 * Node's bodiless `400 Bad Request`; a request line and headers over the limit the 431 above.
 * Like Node's own listener, it answers whenever no response is in flight, so the second request
 * of a kept-alive connection is answered as the first of a fresh one is, and the client can read
 * the answer before the connection closes. Bytes that cannot be parsed after a whole request (a
 * body sent without a length) do not cut that request's answer off: the connection closes once
 * it is written.
 */
export function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Socket): void {
  if (answered.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy(error);
    return;
  }
  const response = boundResponse(socket);
  if (response && !response.writableFinished) {
    if (response.req.complete) {
      // A whole request is being answered: the error is in the bytes after it.
      answered.add(socket);
      response.once('close', () => socket.destroy());
      return;
    }
    if (response.headersSent) {
      // An answer is on the wire: anything written now would corrupt it.
      socket.destroy(error);
      return;
    }
  }
  answerAndClose(socket, answerFor(error.code));
}
