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

async function client(latencies: number[], responses: LoadResponse[]): Promise<void> {
  const connection = new KeepAliveClient(urls[0] as URL);
  try {
    await requests(connection, latencies, responses);
  } finally {
    connection.close();
  }
}

async function requests(
  connection: KeepAliveClient,
  latencies: number[],
  responses: LoadResponse[],
): Promise<void> {
  for (;;) {
    const index = Atomics.add(next, 0, 1);
    if (index >= data.count) return;
    const targetIndex = index % data.targets.length;
    const target = data.targets[targetIndex];
    if (!target) return;
    const sent = performance.now();
    const response = await connection.request(
      'POST',
      urls[targetIndex] as URL,
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
port.once('message', () => {
  const latencies: number[] = [];
  const responses: LoadResponse[] = [];
  void Promise.all(Array.from({ length: data.clients }, () => client(latencies, responses))).then(
    () => {
      const done: LoadWorkerMessage = {
        kind: 'done',
        latenciesMicros: Float64Array.from(latencies),
        responses,
      };
      port.postMessage(done);
    },
  );
});
const ready: LoadWorkerMessage = { kind: 'ready' };
port.postMessage(ready);
