import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request the receiver got, with whether its signature verified. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
  /** The payload as `Webhook.verify` returned it; undefined when the signature did not verify. */
  verified: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  /** The endpoint's secret, for verifying: set it once the endpoint is created. */
  secret: string | undefined;
  received: ReceivedWebhook[];
  /** The first verified delivery `match` accepts, once it came; fails after `timeoutMs`. */
  waitFor(
    match: (webhook: ReceivedWebhook) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1 for tests: answers 500 to its first `failFirst` requests (or
 * what `answer` says; 0 never answers), then 204, and checks each signature with `standardwebhooks`'
 * `Webhook.verify`, as an integrator would.
 */
export async function startWebhookReceiver(
  options: {
    failFirst?: number;
    answer?: (index: number) => number;
    /** Milliseconds to hold each request before answering it (an endpoint that is slow). */
    holdMs?: (index: number) => number;
  } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    secret: undefined,
    received,
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find((webhook) => webhook.verified !== undefined && match(webhook));
        if (found !== undefined) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `no matching webhook within ${String(timeoutMs)} ms; got ${JSON.stringify(received.map((w) => [w.status, w.body]))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = received.length;
      const status = options.answer?.(index) ?? (index < (options.failFirst ?? 0) ? 500 : 204);
      let verified: ReceivedWebhook['verified'];
      if (receiver.secret !== undefined) {
        try {
          verified = new Webhook(receiver.secret).verify(body, {
            'webhook-id': String(req.headers['webhook-id']),
            'webhook-timestamp': String(req.headers['webhook-timestamp']),
            'webhook-signature': String(req.headers['webhook-signature']),
          }) as ReceivedWebhook['verified'];
        } catch {
          verified = undefined;
        }
      }
      received.push({ headers: req.headers, body, status, verified, receivedAt: Date.now() });
      // 0: never answer, as a stuck endpoint.
      if (status === 0) return;
      res.statusCode = status;
      if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
      setTimeout(() => res.end(), options.holdMs?.(index) ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hooks`;
  return receiver;
}
