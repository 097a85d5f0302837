import { appendFile, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chainWriteHeaders, ensureChainWriteKey } from '@trustpoint/registry-abi';
import { callerOf, OPEN_MAX_BODY_BYTES, refusedCalls } from './chain-access';
import { startKeyedHardhatNode, useIntervalMining, type KeyedHardhatNode } from './hardhat-node';

/**
 * The embedded development chain: a Hardhat node behind a JSON-RPC relay that journals every
 * transaction the node accepted. Hardhat keeps its chain in memory only; replaying the journal into
 * a fresh node on the next start rebuilds the same chain (same signed transactions, so the same
 * hashes, nonces and contract addresses), as a node restarting from its own database would.
 *
 * The relay answers reads to anyone and relays everything else (transactions, `hardhat_*`,
 * `evm_*`) only to requests that carry the chain's write credential (`writeHeaders`; see
 * `chain-access.ts`). The node itself listens on loopback and answers only the relay: every request
 * to it carries a key made for that start, which only this process holds (`startKeyedHardhatNode`).
 */
export interface LocalChain {
  url: string;
  port: number;
  /**
   * The headers that make the relay take writes (`Authorization: Bearer <key>`, the key in
   * `<dataDir>/write-key`): for the service's own writers. Never put them in a URL or a log.
   */
  writeHeaders: Readonly<Record<string, string>>;
  /**
   * The node behind the relay (loopback, a port the system gave): it answers only the relay, whose
   * key never leaves this process. For diagnostics and tests; clients use `url`.
   */
  nodeUrl: string;
  /** Transactions replayed from the journal at start. */
  replayed: number;
  /**
   * Settles when the node's process ends, whatever ended it (`stop`, a crash, a kill): with the
   * exit code, or the signal that ended it.
   */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface LocalChainOptions {
  /** Folder of the transaction journal; created when missing. */
  dataDir: string;
  host?: string;
  /** 8545 by default; 0 for any free port (then read `LocalChain.port`). */
  port?: number;
  /**
   * Mine a block every this many milliseconds instead of one per transaction (after the journal is
   * replayed), as a real network does. Default: a block per transaction.
   */
  intervalMiningMs?: number;
}

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: number | string | null;
  method: string;
  params?: unknown[];
}
interface JsonRpcResponse {
  id?: number | string | null;
  result?: unknown;
  error?: unknown;
}
interface JournalEntry {
  method: string;
  params: unknown[];
  /**
   * The timestamp (seconds) of the block that holds it, when one transaction was mined at once (a
   * block per transaction); otherwise `at`, when the node accepted it (ms since the epoch). Both
   * absent in journals of earlier versions.
   */
  time?: number;
  at?: number;
}

/** What keeps the replayed chain the same chain: block 0's date, set at the first start. */
interface ChainIdentityFile {
  initialDate: string;
}

/** Methods that change chain state; everything else is relayed without a trace. */
const JOURNALED = new Set(['eth_sendRawTransaction', 'eth_sendTransaction']);
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const PARSE_ERROR = JSON.stringify({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: 'Parse error: the request is not JSON' },
});

const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

/** The relay's way to the node: its address, its key, kept-alive connections. */
interface NodeLink {
  agent: Agent;
  url: string;
  /** The node's key (`KeyedHardhatNode.headers`), sent with every request. */
  headers: Readonly<Record<string, string>>;
}

/**
 * Sends one JSON-RPC body to the node and reads the answer, over kept-alive connections: the relay
 * runs in the service's own process, and under load `fetch` cost it more than the node's work.
 */
function post(node: NodeLink, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      node.url,
      {
        method: 'POST',
        agent: node.agent,
        headers: {
          ...node.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`the chain node answered HTTP ${String(response.statusCode)}`));
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Whether a request body may hold a state change: only those are parsed and journaled. */
function mayWrite(body: string): boolean {
  for (const method of JOURNALED) if (body.includes(method)) return true;
  return false;
}

async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      throw Object.assign(new Error(`JSON-RPC request too large: at most ${String(limit)} bytes`), {
        unread: true,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJournal(path: string): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // A crash can cut the last line short; that entry was never acknowledged, so it is dropped.
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as JournalEntry];
      } catch {
        return [];
      }
    });
}

async function call(
  node: NodeLink,
  id: number,
  method: string,
  params: unknown[],
): Promise<unknown> {
  const reply = JSON.parse(
    await post(node, JSON.stringify({ jsonrpc: '2.0', id, method, params })),
  ) as JsonRpcResponse;
  if (reply.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** The latest block's timestamp, in seconds. */
async function latestTime(node: NodeLink): Promise<number> {
  const block = (await call(node, 0, 'eth_getBlockByNumber', ['latest', false])) as {
    timestamp: string;
  };
  return Number(BigInt(block.timestamp));
}

/**
 * Sends the journal to a fresh node in order, each transaction in a block dated as its block was
 * (mined with interval mining: when the node accepted it, to the second; never before the block
 * before): records keep their chain time across restarts. Returns the latest block's time
 * (seconds); new blocks are dated by the clock (`dateNextBlock`).
 */
async function replay(node: NodeLink, entries: JournalEntry[]): Promise<number> {
  let last = await latestTime(node);
  for (const [index, entry] of entries.entries()) {
    try {
      const time = entry.time ?? (entry.at === undefined ? undefined : Math.floor(entry.at / 1000));
      if (time !== undefined) {
        last = Math.max(time, last);
        await call(node, index, 'evm_setNextBlockTimestamp', [last]);
      }
      await call(node, index, entry.method, entry.params);
    } catch (error) {
      throw new Error(
        `Replaying journal entry ${String(index)} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return latestTime(node);
}

/**
 * Block 0's date, read from the data directory, or now on a first start (and on the first start
 * of a data directory from before it was kept: its genesis changes that once).
 */
async function chainIdentity(dataDir: string): Promise<ChainIdentityFile> {
  const path = join(dataDir, 'chain-identity.json');
  try {
    const kept = JSON.parse(await readFile(path, 'utf8')) as Partial<ChainIdentityFile>;
    if (typeof kept.initialDate === 'string' && !Number.isNaN(Date.parse(kept.initialDate))) {
      return { initialDate: kept.initialDate };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) {
      throw error;
    }
  }
  // Whole seconds: block timestamps are.
  const identity = { initialDate: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString() };
  await writeFile(path, `${JSON.stringify(identity)}\n`);
  return identity;
}

async function assertPortFree(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        // Keeps the code, so the command prints the sentence alone rather than a stack trace.
        error.code === 'EADDRINUSE'
          ? Object.assign(
              new Error(
                `${host}:${String(port)} is already in use (is Trustpoint already running?): stop that process, or choose a free port for the local chain with CHAIN_PORT`,
                { cause: error },
              ),
              { code: 'EADDRINUSE' },
            )
          : error,
      );
    });
    probe.listen(port, host, () => {
      probe.close(() => {
        resolve();
      });
    });
  });
}

export async function startLocalChain(options: LocalChainOptions): Promise<LocalChain> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8545;
  await mkdir(options.dataDir, { recursive: true });
  const journalPath = join(options.dataDir, 'chain-journal.ndjson');
  const writeKey = await ensureChainWriteKey(options.dataDir);
  // Fail before anything starts when the port is taken (typically: Trustpoint already running).
  if (port !== 0) await assertPortFree(host, port);

  // The same block 0 on every start: verifiers pin the chain by its genesis hash.
  const { initialDate } = await chainIdentity(options.dataDir);
  const node: KeyedHardhatNode = await startKeyedHardhatNode({ initialDate });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (node.process.exitCode !== null || node.process.signalCode !== null) {
      resolve({ code: node.process.exitCode, signal: node.process.signalCode });
      return;
    }
    node.process.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  const agent = new Agent({ keepAlive: true });
  const link: NodeLink = { agent, url: node.url, headers: node.headers };
  const entries = await readJournal(journalPath);
  let lastTime: number;
  try {
    lastTime = await replay(link, entries);
  } catch (error) {
    agent.destroy();
    await node.stop();
    throw error;
  }
  /**
   * Dates the next block by the clock (never before the latest). Hardhat dates a block by the last
   * time it was told plus what has passed since, measured from when that block was mined: after
   * a start, whose replayed or genesis block is old, or after sitting idle, its blocks would be
   * dated in the past (a start left alone for an hour, then its first record an hour early).
   */
  const dateNextBlock = async (): Promise<void> => {
    try {
      await call(link, 0, 'evm_setNextBlockTimestamp', [
        Math.max(Math.floor(Date.now() / 1000), lastTime),
      ]);
    } catch {
      // Refused (a block of this second or later already mined): the node's own date stands.
    }
  };
  if (options.intervalMiningMs !== undefined) {
    try {
      await dateNextBlock();
      await useIntervalMining(node.url, options.intervalMiningMs, node.headers);
    } catch (error) {
      agent.destroy();
      await node.stop();
      throw error;
    }
  }
  const journal = await open(journalPath, 'a');

  let queue: Promise<unknown> = Promise.resolve();
  const relay = async (body: string): Promise<string> => {
    // A block per transaction: each dated as it is mined.
    if (options.intervalMiningMs === undefined) await dateNextBlock();
    const replyText = await post(link, body);
    const at = Date.now();
    const requests = [JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[]].flat();
    const replies = [JSON.parse(replyText) as JsonRpcResponse | JsonRpcResponse[]].flat();
    const accepted = requests.filter(
      (request) =>
        JOURNALED.has(request.method) &&
        replies.some((reply) => reply.id === request.id && reply.error === undefined),
    );
    if (accepted.length > 0) {
      // A block per transaction: the one just mined holds it, and its time replays exactly.
      const time =
        options.intervalMiningMs === undefined && accepted.length === 1
          ? await latestTime(link)
          : undefined;
      if (time !== undefined) lastTime = time;
      else if (options.intervalMiningMs === undefined) lastTime = await latestTime(link);
      const lines = accepted
        .map((request) =>
          JSON.stringify({
            method: request.method,
            params: request.params ?? [],
            ...(time === undefined ? { at } : { time }),
          }),
        )
        .join('\n');
      // Durable before the client hears "accepted": an acknowledged transaction survives a crash.
      await appendFile(journal, `${lines}\n`);
      await journal.sync();
    }
    return replyText;
  };

  const server: Server = createServer((request, response) => {
    // A web page's preflight: it may then POST read-only calls (see WEB_PAGE_METHODS).
    if (request.method === 'OPTIONS') {
      response.writeHead(204, CORS_PREFLIGHT_HEADERS).end();
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const caller = callerOf(request.headers, writeKey);
    const replyHeaders = {
      'content-type': 'application/json',
      ...(caller === 'web page' ? { 'access-control-allow-origin': '*' } : {}),
    };
    const handle = async () => {
      try {
        let body = await readBody(
          request,
          caller === 'service' ? MAX_BODY_BYTES : OPEN_MAX_BODY_BYTES,
        );
        if (caller !== 'service') {
          let calls: unknown;
          try {
            calls = JSON.parse(body);
          } catch {
            response.writeHead(200, replyHeaders).end(PARSE_ERROR);
            return;
          }
          const refusal = refusedCalls(calls, caller);
          if (refusal !== undefined) {
            response.writeHead(200, replyHeaders).end(refusal);
            return;
          }
          // The node reads exactly what was checked, whatever its parser would make of the text
          // (a member named twice, say).
          body = JSON.stringify(calls);
        }
        // Writes go one at a time, so the journal holds them in the order the node accepted them;
        // reads (most of the traffic: receipts, blocks, calls) go straight through.
        const writes =
          caller === 'service' &&
          mayWrite(body) &&
          [JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[]]
            .flat()
            .some((call) => JOURNALED.has(call.method));
        let reply: string;
        if (writes) {
          const relayed = queue.then(() => relay(body));
          queue = relayed.catch(() => undefined);
          reply = await relayed;
        } else {
          reply = await post(link, body);
        }
        response.writeHead(200, replyHeaders).end(reply);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // A body left unread ends its connection: what follows on it is the rest of that body.
        const unread = typeof error === 'object' && error !== null && 'unread' in error;
        response
          .writeHead(200, unread ? { ...replyHeaders, connection: 'close' } : replyHeaders)
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message } }));
      }
    };
    void handle();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        resolve();
      });
    });
  } catch (error) {
    agent.destroy();
    await journal.close();
    await node.stop();
    throw error;
  }

  // Port 0: the port the system gave, bound at once (a port found free and bound later, after
  // the node started, may be another process's by then).
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${String(bound)}`,
    port: bound,
    writeHeaders: chainWriteHeaders(writeKey),
    nodeUrl: node.url,
    replayed: entries.length,
    ended,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      agent.destroy();
      await journal.close();
      await node.stop();
    },
  };
}
