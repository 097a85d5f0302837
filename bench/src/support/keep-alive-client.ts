// A lean HTTP/1.1 client for load: one keep-alive socket, one request at a time, the request
// written in one piece and the answer parsed only as far as status and body. fetch() costs the
// load generator several times more CPU per request, and on a 2-core machine the client's CPU is
// taken from the service it measures.
import { connect, type Socket } from 'node:net';

export interface ClientResponse {
  status: number;
  body: string;
  /** How long the server keeps this connection idle (its `Keep-Alive: timeout=`), in ms. */
  keepAliveMs?: number;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class KeepAliveClient {
  readonly #host: string;
  readonly #port: number;
  #socket: Socket | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting:
    { resolve: (response: ClientResponse) => void; reject: (error: Error) => void } | undefined;

  constructor(url: URL) {
    this.#host = url.hostname;
    this.#port = Number(url.port);
  }

  /** Sends one request and resolves with its answer. */
  request(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string,
  ): Promise<ClientResponse> {
    const payload = Buffer.from(body);
    const head =
      `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `Content-Length: ${String(payload.length)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#connection().write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connection(): Socket {
    if (this.#socket !== undefined) return this.#socket;
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket !== socket) return;
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    const fail = (error: Error) => {
      // A socket closed earlier (close()) reports it later: the request on its successor stands.
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#buffer = Buffer.alloc(0);
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => {
      fail(new Error('connection closed before the answer'));
    });
    this.#socket = socket;
    return socket;
  }

  #parse(): void {
    const end = this.#buffer.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.#buffer.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) {
      // Only the server's own refusals come without a body (408 when a request waited too long
      // for its headers to be read), and it closes the connection after them.
      this.#buffer = Buffer.alloc(0);
      const waiting = this.#waiting;
      this.#waiting = undefined;
      this.close();
      waiting?.resolve({ status, body: '' });
      return;
    }
    const bodyStart = end + HEADER_END.length;
    const bodyEnd = bodyStart + Number(length[1]);
    if (this.#buffer.length < bodyEnd) return;
    const body = this.#buffer.subarray(bodyStart, bodyEnd).toString('utf8');
    this.#buffer = this.#buffer.subarray(bodyEnd);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    const keepAlive = /\r\nkeep-alive: *timeout=(\d+)/i.exec(head);
    waiting?.resolve({
      status,
      body,
      ...(keepAlive === null ? {} : { keepAliveMs: Number(keepAlive[1]) * 1_000 }),
    });
  }
}
