import { appendFile, mkdir, open, readFile } from 'node:fs/promises';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { startHardhatNode, useIntervalMining, type HardhatNode } from './hardhat-node';

/**
 * The embedded development chain: a Hardhat node behind a JSON-RPC relay that journals every
 * transaction the node accepted. Hardhat keeps its chain in memory only; replaying the journal into
 * a fresh node on the next start rebuilds the same chain (same signed transactions, so the same
 * hashes, nonces and contract addresses), as a node restarting from its own database would.
 */
export interface LocalChain {
  url: string;
  port: number;
  /** Transactions replayed from the journal at start. */
  replayed: number;
  stop(): Promise<void>;
}

export interface LocalChainOptions {
  /** Folder of the transaction journal; created when missing. */
  dataDir: string;
  host?: string;
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
}

/** Methods that change chain state; everything else is relayed without a trace. */
const JOURNALED = new Set(['eth_sendRawTransaction', 'eth_sendTransaction']);
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * What a web page of another origin (the web verifier, opened from the service or from disk) may
 * ask: reads only. The node's accounts are unlocked, so any site the developer visits could
 * otherwise send transactions from them.
 */
const WEB_PAGE_METHODS = new Set([
  'eth_call',
  'eth_chainId',
  'net_version',
  'eth_blockNumber',
  'eth_getCode',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
  // The verifier proves a node's chain by its genesis block and dates a record by its block.
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
]);
const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

/** The reply to a page's request for a method it may not use (JSON-RPC "method not found"). */
function refusedToWebPage(body: string): string | undefined {
  let calls: JsonRpcRequest[];
  try {
    calls = [JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[]].flat();
  } catch {
    return undefined; // the node answers the parse error itself
  }
  const refused = calls.find((call) => !WEB_PAGE_METHODS.has(call.method));
  if (refused === undefined) return undefined;
  return JSON.stringify({
    jsonrpc: '2.0',
    id: calls.length === 1 ? (calls[0]?.id ?? null) : null,
    error: {
      code: -32601,
      message: `${refused.method} is not available to web pages on the embedded chain`,
    },
  });
}

/**
 * Sends one JSON-RPC body to the node and reads the answer, over kept-alive connections: the relay
 * runs in the service's own process, and under load `fetch` cost it more than the node's work.
 */
function post(agent: Agent, url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
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

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('JSON-RPC request too large');
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

async function replay(agent: Agent, nodeUrl: string, entries: JournalEntry[]): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    const reply = JSON.parse(
      await post(agent, nodeUrl, JSON.stringify({ jsonrpc: '2.0', id: index, ...entry })),
    ) as JsonRpcResponse;
    if (reply.error !== undefined) {
      throw new Error(
        `Replaying journal entry ${String(index)} failed: ${JSON.stringify(reply.error)}`,
      );
    }
  }
}

async function assertPortFree(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`${host}:${String(port)} is already in use (is Trustpoint already running?)`)
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
  // Fail before anything starts when the port is taken (typically: Trustpoint already running).
  await assertPortFree(host, port);

  const node: HardhatNode = await startHardhatNode();
  const agent = new Agent({ keepAlive: true });
  const entries = await readJournal(journalPath);
  try {
    await replay(agent, node.url, entries);
  } catch (error) {
    agent.destroy();
    await node.stop();
    throw error;
  }
  if (options.intervalMiningMs !== undefined) {
    try {
      await useIntervalMining(node.url, options.intervalMiningMs);
    } catch (error) {
      agent.destroy();
      await node.stop();
      throw error;
    }
  }
  const journal = await open(journalPath, 'a');

  let queue: Promise<unknown> = Promise.resolve();
  const relay = async (body: string): Promise<string> => {
    const replyText = await post(agent, node.url, body);
    const requests = [JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[]].flat();
    const replies = [JSON.parse(replyText) as JsonRpcResponse | JsonRpcResponse[]].flat();
    const accepted = requests.filter(
      (request) =>
        JOURNALED.has(request.method) &&
        replies.some((reply) => reply.id === request.id && reply.error === undefined),
    );
    if (accepted.length > 0) {
      const lines = accepted
        .map((request) => JSON.stringify({ method: request.method, params: request.params ?? [] }))
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
    const fromWebPage = request.headers.origin !== undefined;
    const replyHeaders = {
      'content-type': 'application/json',
      ...(fromWebPage ? { 'access-control-allow-origin': '*' } : {}),
    };
    const handle = async () => {
      try {
        const body = await readBody(request);
        const refusal = fromWebPage ? refusedToWebPage(body) : undefined;
        if (refusal !== undefined) {
          response.writeHead(200, replyHeaders).end(refusal);
          return;
        }
        // Writes go one at a time, so the journal holds them in the order the node accepted them;
        // reads (most of the traffic: receipts, blocks, calls) go straight through, unparsed.
        const writes =
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
          reply = await post(agent, node.url, body);
        }
        response.writeHead(200, replyHeaders).end(reply);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        response
          .writeHead(200, replyHeaders)
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

  return {
    url: `http://${host}:${String(port)}`,
    port,
    replayed: entries.length,
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
