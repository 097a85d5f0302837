import {
  createServer,
  IncomingMessage,
  ServerResponse,
  type RequestListener,
  type Server,
} from 'node:http';
import { answerMalformedRequest } from './malformed-request.js';

/**
 * How long a client may take to send a request. Node's defaults (60 s for the headers, checked
 * only every 30 s) let a client that trickles its headers a byte at a time hold a connection for
 * up to 90 s; a handful of such clients per second keep many sockets busy for nothing.
 */
export interface ApiServerTimeouts {
  /** The request line and every header must have arrived within this. */
  headersTimeoutMs: number;
  /**
   * The whole request, body included, must have arrived within this: it bounds a trickled body,
   * and it is the time the largest upload (`MAX_FILE_BYTES`) has to arrive.
   */
  requestTimeoutMs: number;
  /**
   * An idle keep-alive connection is closed after this (and says so: `Keep-Alive: timeout=`).
   * Longer than a client waits between requests while its record is anchored (blocks of seconds,
   * a few confirmations), and than a load balancer's idle timeout (60 s on AWS's): a client that
   * had to reconnect for each request would wait to be accepted, which Node does one connection
   * per turn of its event loop, a turn that under load holds hundreds of requests' work.
   */
  keepAliveTimeoutMs: number;
  /** How often the two limits above are checked (each may be overrun by up to this). */
  checkIntervalMs: number;
}

/**
 * 20 s for the headers, 5 min for a whole request (a 2 GiB upload needs about 60 Mbit/s), idle
 * connections kept 65 s.
 */
export const DEFAULT_API_SERVER_TIMEOUTS: Readonly<ApiServerTimeouts> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 65_000,
  checkIntervalMs: 1_000,
});

/**
 * An HTTP server for an API app with the timeouts above: a client that sends its headers or its
 * body too slowly gets 408 and its connection closed, while other clients are served meanwhile;
 * a request Node cannot parse gets the spec's 400 body (`answerMalformedRequest`).
 * `listen` is the caller's.
 */
export function createApiServer(
  app: RequestListener,
  timeouts: Partial<ApiServerTimeouts> = {},
): Server {
  const settings = { ...DEFAULT_API_SERVER_TIMEOUTS, ...timeouts };
  const server = createServer(
    {
      ...bornAsTheAppsOwn(app),
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      connectionsCheckingInterval: settings.checkIntervalMs,
      // `requestTarget` answers a missing Host with the spec's 400 body; Node's answer has none.
      requireHostHeader: false,
    },
    app,
  );
  server.on('clientError', answerMalformedRequest);
  return server;
}

/**
 * The classes an Express app's requests and responses are made with: born with the app's own
 * prototypes (`app.request`, `app.response`). Express gives each request and response those
 * prototypes as it takes them (`Object.setPrototypeOf`); changing an object's prototype after it
 * was made throws away what V8 learnt of its shape, and every property read on it afterwards (the
 * router's, the middleware's, Node's own) takes the slow path: measured, an Express app answering
 * a POST served 9,000 requests/s with the change and 21,700/s when the objects are born with the
 * prototype (Express then finds it already set, and V8 leaves the object alone). Nothing for a
 * listener that is not an Express app.
 */
function bornAsTheAppsOwn(app: RequestListener): {
  IncomingMessage?: typeof IncomingMessage;
  ServerResponse?: typeof ServerResponse;
} {
  const { request, response } = app as { request?: unknown; response?: unknown };
  if (!(request instanceof IncomingMessage) || !(response instanceof ServerResponse)) {
    return {};
  }
  return {
    IncomingMessage: bornWith(IncomingMessage, request),
    ServerResponse: bornWith(ServerResponse, response),
  };
}

/**
 * A constructor that runs `base` and whose instances have `prototype` (which inherits `base`'s):
 * a function, since a class's `prototype` cannot be replaced.
 */
function bornWith<C extends typeof IncomingMessage | typeof ServerResponse>(
  base: C,
  prototype: object,
): C {
  function Born(this: object, ...args: unknown[]): void {
    Reflect.apply(base, this, args);
  }
  Born.prototype = prototype;
  return Born as unknown as C;
}
