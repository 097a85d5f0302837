import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC call as the relay sees it, and the node's reply to it. */
export interface RelayedCall {
  method: string;
  params: unknown[];
}
export interface RelayedReply {
  result?: unknown;
  error?: unknown;
}

export interface JsonRpcRelay {
  url: string;
  close(): Promise<void>;
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of request) body += (chunk as Buffer).toString();
  return body;
};

/**
 * A JSON-RPC endpoint of its own in front of a real node: what a public endpoint is, here on this
 * machine (public endpoints cannot be reached from a test). It passes every call to `target`, and
 * `change` may alter a reply, as an endpoint that lies would, or hold it (a slow node). Answers
 * pages of any origin. Listens on `port` when given.
 */
export async function startJsonRpcRelay(
  target: string,
  change: (call: RelayedCall, reply: RelayedReply) => RelayedReply | Promise<RelayedReply> = (
    _call,
    reply,
  ) => reply,
  port = 0,
): Promise<JsonRpcRelay> {
  const server = createServer((request, response) => {
    const cors = { 'access-control-allow-origin': '*' };
    if (request.method === 'OPTIONS') {
      response
        .writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
        })
        .end();
      return;
    }
    void (async () => {
      const body = await readBody(request);
      const call = JSON.parse(body) as RelayedCall & { id: unknown };
      const { authorization } = request.headers;
      const answer = await fetch(target, {
        method: 'POST',
        // The embedded chain's write credential, when the caller sends one.
        headers: {
          'content-type': 'application/json',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body,
      });
      const reply = (await answer.json()) as RelayedReply & { id: unknown; jsonrpc: string };
      const { result, error } = await change(call, reply);
      response.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: call.id,
          ...(error === undefined ? { result } : { error }),
        }),
      );
    })().catch(() => {
      response.writeHead(502, cors).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${String(listening)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** `getTrustPoint(string,uint256)`: a lying endpoint answers its calls with another record. */
export const GET_TRUST_POINT_SELECTOR = '0x4a532653';

/** The ABI encoding of `getTrustPoint`'s outputs `(string hash, uint8 type)`: an Evidence of `hash`. */
export function evidenceAnswer(hash: string): string {
  const word = (value: number) => value.toString(16).padStart(64, '0');
  return `0x${word(64)}${word(0)}${word(64)}${Buffer.from(hash).toString('hex')}`;
}

/**
 * A `change` for `startJsonRpcRelay` that makes it an endpoint that lies: every `getTrustPoint`
 * call is answered with an Evidence of `hash`, whatever the node holds; other calls pass.
 */
export function answeringTrustPointsWith(
  hash: string,
): (call: RelayedCall, reply: RelayedReply) => RelayedReply {
  return (call, reply) =>
    call.method === 'eth_call' &&
    (call.params[0] as { data?: string } | undefined)?.data?.startsWith(
      GET_TRUST_POINT_SELECTOR,
    ) === true
      ? { result: evidenceAnswer(hash) }
      : reply;
}
