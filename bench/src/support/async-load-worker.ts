// A worker thread of `startAsyncLoad`: its share of the clients, each sending a creation with
// `Prefer: respond-async`, then waiting until the runner says its record is anchored, until the
// load's time is up.
import { parentPort, workerData } from 'node:worker_threads';
import {
  ACCEPTED,
  REFUSED,
  UNSENT,
  type AsyncLoadMessage,
  type AsyncLoadWorkerData,
  type AsyncLoadWorkerMessage,
  type SentRequest,
} from './async-load.js';
import { KeepAliveClient } from './keep-alive-client.js';
import { requestBody } from './load-body.js';

const data = workerData as AsyncLoadWorkerData;
/**
 * A connection idle for longer than the service keeps it (its `Keep-Alive: timeout=`) less this
 * margin is replaced before the next request, as HTTP clients do (undici): one the service is
 * about to close could take the request with it. 3 s when the service announces nothing.
 */
const IDLE_MARGIN_MS = 2_000;
const UNANNOUNCED_IDLE_MS = 3_000;
const counters = new Int32Array(data.counters);
/** Clients waiting for their record, by the record's id. */
const waiting = new Map<string, () => void>();
let released = false;
let index = 0;

function anchoredOf(id: string): Promise<void> {
  if (released) return Promise.resolve();
  return new Promise((resolve) => waiting.set(id, resolve));
}

/** What one creation came to: its status (0: no answer), the certID of a 202, the keep-alive. */
interface CreationAnswer {
  status: number;
  id?: string;
  keepAliveMs?: number;
}

/** Sends one creation with `Prefer: respond-async` on `connection`; never throws. */
async function sendCreation(
  connection: KeepAliveClient,
  url: URL,
  token: string,
): Promise<CreationAnswer> {
  try {
    const response = await connection.request(
      'POST',
      url,
      {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        prefer: 'respond-async',
      },
      JSON.stringify(requestBody(data.body, (index += 1))),
    );
    return {
      status: response.status,
      ...(response.status === 202
        ? { id: (JSON.parse(response.body) as { data: { certID: string } }).data.certID }
        : {}),
      ...(response.keepAliveMs === undefined ? {} : { keepAliveMs: response.keepAliveMs }),
    };
  } catch {
    return { status: 0 };
  }
}

/** A client's target and its connection, opened before the run (`openConnections`). */
interface Client {
  url: URL;
  token: string;
  connection: KeepAliveClient;
}

/** Connections opened at once while the service is busy: a few, as clients arriving apart do. */
const OPENING_AT_ONCE = 50;

/**
 * Every client's connection, opened and answered once (`GET /healthz`) before the measured run,
 * as `bench:create`'s clients do: the service accepts one new connection per turn of its event
 * loop (libuv), so 3,000 connections opened as the run starts made the first seconds' answers
 * wait seconds for that (p99 1.1-1.2 s in the first 5 s, 25-53 ms after), which is not what the
 * run measures. A connection the service later closes is opened again on its next request.
 */
async function openConnections(): Promise<Client[]> {
  const clients = Array.from({ length: data.clients }, (_, i) => {
    const target = data.targets[(data.firstClient + i) % data.targets.length];
    if (!target) throw new Error('no target');
    const url = new URL(target.url);
    return { url, token: target.token, connection: new KeepAliveClient(url) };
  });
  for (let start = 0; start < clients.length; start += OPENING_AT_ONCE) {
    await Promise.all(
      clients.slice(start, start + OPENING_AT_ONCE).map(async ({ url, connection }) => {
        const answer = await connection.request('GET', new URL('/healthz', url), {}, '');
        if (answer.status !== 200) {
          throw new Error(`GET /healthz answered ${String(answer.status)}`);
        }
      }),
    );
  }
  return clients;
}

async function client(
  { url, token, connection }: Client,
  until: number,
  requests: SentRequest[],
): Promise<void> {
  let answeredAt = Date.now();
  let idleMs = UNANNOUNCED_IDLE_MS;
  try {
    while (Date.now() < until && !released) {
      // A long wait for anchoring may outlast the service's keep-alive: a new connection then.
      if (Date.now() - answeredAt > idleMs) connection.close();
      const sentAt = Date.now();
      const started = performance.now();
      const { status, id, keepAliveMs } = await sendCreation(connection, url, token);
      if (keepAliveMs !== undefined) idleMs = Math.max(0, keepAliveMs - IDLE_MARGIN_MS);
      answeredAt = Date.now();
      const answerMicros = Math.round((performance.now() - started) * 1_000);
      requests.push({ sentAt, answerMicros, status, ...(id === undefined ? {} : { id }) });
      if (id === undefined) {
        Atomics.add(counters, REFUSED, 1);
        // A refusal (503, 429, a closed connection) is answered at once: do not spin on it.
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      Atomics.add(counters, ACCEPTED, 1);
      if (data.waitForAnchoring) await anchoredOf(id);
    }
  } finally {
    connection.close();
  }
}

/**
 * Open loop: every `tick` the requests due by now are sent, each on a free connection of the
 * pool; one due with none free is counted unsent. Its time runs from when it was due, so a late
 * tick counts against the answer.
 */
async function openLoop(
  clients: Client[],
  rate: number,
  until: number,
  requests: SentRequest[],
): Promise<void> {
  const free = [...clients];
  const all = [...free];
  const started = performance.now();
  const startedAt = Date.now();
  let due = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (dueMs: number) => {
    const client = free.pop();
    if (client === undefined) {
      Atomics.add(counters, UNSENT, 1);
      return;
    }
    const sending = (async () => {
      const { status, id } = await sendCreation(client.connection, client.url, client.token);
      const answerMicros = Math.round((performance.now() - started - dueMs) * 1_000);
      requests.push({
        sentAt: startedAt + dueMs,
        answerMicros,
        status,
        ...(id === undefined ? {} : { id }),
      });
      Atomics.add(counters, id === undefined ? REFUSED : ACCEPTED, 1);
      free.push(client);
    })();
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
  };
  while (Date.now() < until && !released) {
    const elapsed = performance.now() - started;
    const target = Math.floor((elapsed * rate) / 1_000);
    for (; due < target; due += 1) send((due * 1_000) / rate);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.all(inFlight);
  for (const client of all) client.connection.close();
}

const port = parentPort;
if (!port) throw new Error('async-load-worker runs as a worker thread of startAsyncLoad');
/** Every client's connection, open before `ready` is posted and so before `go` arrives. */
let opened: Client[] = [];
port.on('message', (message: AsyncLoadMessage) => {
  if (message.kind === 'anchored') {
    for (const id of message.ids) {
      const resolve = waiting.get(id);
      if (resolve === undefined) continue;
      waiting.delete(id);
      resolve();
    }
  } else if (message.kind === 'release') {
    released = true;
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
  } else {
    const until = Date.now() + data.durationMs;
    const requests: SentRequest[] = [];
    const running =
      data.ratePerSecond === undefined
        ? opened.map((each) => client(each, until, requests))
        : [openLoop(opened, data.ratePerSecond, until, requests)];
    void Promise.all(running).then(() => {
      const done: AsyncLoadWorkerMessage = { kind: 'done', requests };
      port.postMessage(done);
    });
  }
});
void openConnections().then((clients) => {
  opened = clients;
  const ready: AsyncLoadWorkerMessage = { kind: 'ready' };
  port.postMessage(ready);
});
