// A worker thread of `runHttpLoad`: its share of the concurrent clients, each taking the next
// request index from the counter all threads share until `count` are sent.
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import type { LoadResponse, LoadWorkerData, LoadWorkerMessage } from './http-load.js';
import { KeepAliveClient } from './keep-alive-client.js';
import { requestBody } from './load-body.js';

const data = workerData as LoadWorkerData;
const next = new Int32Array(data.next);

interface AnswerBody {
  data?: {
    metadata?: { transactionHash?: string }[];
    transactionHash?: string;
    timestamp?: number;
  };
}

const urls = data.targets.map((target) => new URL(target.url));

/** The services the targets name (one or several API processes), by `host:port`. */
const origins = [...new Map(urls.map((url) => [url.host, url])).values()];

/**
 * A client's connections, one to each service, opened and answered once (`GET /healthz`) before
 * the measured run: the service accepts one new connection per turn of its event loop (libuv),
 * so connections opened as the run starts would be measured waiting for that, seconds under load,
 * rather than the requests. `bench:real-network`'s first 5 s show what opening them under load
 * costs.
 */
async function openedConnections(): Promise<Map<string, KeepAliveClient>> {
  const connections = new Map<string, KeepAliveClient>();
  for (const origin of origins) {
    const connection = new KeepAliveClient(origin);
    connections.set(origin.host, connection);
    const answer = await connection.request('GET', new URL('/healthz', origin), {}, '');
    if (answer.status !== 200) throw new Error(`GET /healthz answered ${String(answer.status)}`);
  }
  return connections;
}

async function client(
  connections: Map<string, KeepAliveClient>,
  latencies: number[],
  responses: LoadResponse[],
): Promise<void> {
  try {
    await requests(connections, latencies, responses);
  } finally {
    for (const connection of connections.values()) connection.close();
  }
}

async function requests(
  connections: Map<string, KeepAliveClient>,
  latencies: number[],
  responses: LoadResponse[],
): Promise<void> {
  for (;;) {
    const index = Atomics.add(next, 0, 1);
    if (index >= data.count) return;
    const targetIndex = index % data.targets.length;
    const target = data.targets[targetIndex];
    if (!target) return;
    const url = urls[targetIndex] as URL;
    const connection = connections.get(url.host) as KeepAliveClient;
    const sent = performance.now();
    const response = await connection.request(
      'POST',
      url,
      {
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        ...data.headers,
        ...(data.idempotencyKeys ? { 'idempotency-key': randomUUID() } : {}),
      },
      JSON.stringify(requestBody(data.body, index)),
    );
    const answer = (response.body === '' ? {} : JSON.parse(response.body)) as AnswerBody;
    latencies.push(Math.round((performance.now() - sent) * 1_000));
    const transactionHash =
      answer.data?.transactionHash ?? answer.data?.metadata?.[0]?.transactionHash;
    responses.push({
      target: targetIndex,
      status: response.status,
      ...(transactionHash === undefined ? {} : { transactionHash }),
      ...(answer.data?.timestamp === undefined ? {} : { timestamp: answer.data.timestamp }),
    });
  }
}

const port = parentPort;
if (!port) throw new Error('http-load-worker runs as a worker thread of runHttpLoad');
void Promise.all(Array.from({ length: data.clients }, openedConnections)).then((connections) => {
  port.once('message', () => {
    const latencies: number[] = [];
    const responses: LoadResponse[] = [];
    void Promise.all(
      connections.map((connection) => client(connection, latencies, responses)),
    ).then(() => {
      const done: LoadWorkerMessage = {
        kind: 'done',
        latenciesMicros: Float64Array.from(latencies),
        responses,
      };
      port.postMessage(done);
    });
  });
  const ready: LoadWorkerMessage = { kind: 'ready' };
  port.postMessage(ready);
});
