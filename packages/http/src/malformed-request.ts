import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { toErrorBody } from '@trustpoint/domain';

/** Node's own bodiless answers, kept for what is not a malformed request. */
const NODE_ANSWERS: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
};

function malformedAnswer(): string {
  const body = JSON.stringify(
    toErrorBody('validation', {
      errors: [{ field: 'request', error: 'Not a well-formed HTTP/1.1 request' }],
    }),
  );
  return (
    'HTTP/1.1 400 Bad Request\r\n' +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${String(Buffer.byteLength(body))}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * The answer still to be written to a request that arrived whole, if the socket has one
 * (`_httpMessage`, which Node's own code reads): the error is then in bytes after that request.
 */
function answerInProgress(socket: Socket): ServerResponse | undefined {
  const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return response && response.req.complete && !response.writableFinished ? response : undefined;
}

/**
 * The server's `clientError` listener. A request Node's parser refuses before any app sees it
 * (Content-Length and Transfer-Encoding both, two different lengths, a length that is not a
 * number, a chunked body that is not chunked, an unknown method) is answered the spec's 400 body
 * instead of Node's bodiless `400 Bad Request`, then the connection is closed. Timeouts and
 * oversized headers keep Node's answers. Bytes that cannot be parsed after a whole request (a body
 * sent without a length) do not cut that request's answer off: the connection closes once it is
 * written.
 */
export function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Socket): void {
  const inProgress = answerInProgress(socket);
  if (inProgress && error.code !== 'ECONNRESET') {
    inProgress.once('close', () => socket.destroy());
    return;
  }
  if (error.code !== 'ECONNRESET' && socket.writable && socket.bytesWritten === 0) {
    socket.write(NODE_ANSWERS[error.code ?? ''] ?? malformedAnswer());
  }
  socket.destroy(error);
}
