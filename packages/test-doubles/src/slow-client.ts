import { connect } from 'node:net';

export interface SlowClientResult {
  /** Everything the server sent back (`HTTP/1.1 408 ...` when it timed the client out). */
  received: string;
  /** Bytes of the trickled part sent before the server closed the connection. */
  sentBytes: number;
  /** Milliseconds from the first byte sent to the connection's close. */
  closedAfterMs: number;
}

export interface TrickleOptions {
  byteIntervalMs: number;
  giveUpMs: number;
  /** Sent at once before the trickle, e.g. the headers of a request whose body is trickled. */
  sentAtOnce?: string;
  host?: string;
}

/**
 * A client that sends `request` (raw HTTP) one byte every `byteIntervalMs` over a new connection,
 * as a slow-loris attacker does, until the server closes the connection or `giveUpMs` passes.
 */
export function trickleRequest(
  port: number,
  request: string,
  options: TrickleOptions,
): Promise<SlowClientResult> {
  const bytes = Buffer.from(request, 'latin1');
  return new Promise((resolve, reject) => {
    const socket = connect(port, options.host ?? '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    let startedAt = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy(
        new Error(`the server still held the connection after ${String(options.giveUpMs)} ms`),
      );
    }, options.giveUpMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('connect', () => {
      startedAt = Date.now();
      if (options.sentAtOnce !== undefined) socket.write(options.sentAtOnce, 'latin1');
      timer = setInterval(() => {
        if (sent >= bytes.length || socket.destroyed || !socket.writable) return;
        socket.write(bytes.subarray(sent, sent + 1));
        sent += 1;
      }, options.byteIntervalMs);
    });
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({
        received: Buffer.concat(chunks).toString('latin1'),
        sentBytes: sent,
        closedAfterMs: Date.now() - startedAt,
      });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      // A reset after the server's answer is the server closing; anything else fails the caller.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
      clearInterval(timer);
      clearTimeout(giveUp);
      reject(error);
    });
  });
}
