import { existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';

/** A local Hardhat JSON-RPC node run as a child process, as an outside client would reach it. */
export interface HardhatNode {
  url: string;
  port: number;
  process: ChildProcess;
  /** Stops the node and waits for its process to exit. */
  stop(): Promise<void>;
}

export interface HardhatNodeOptions {
  host?: string;
  /**
   * A free port is picked when omitted (`freePort`). 0: the node binds a port the system gives it
   * and says which (a node this process starts for itself, leaving no reservation behind).
   */
  port?: number;
  /** How long to wait for the node to answer `net_version`. */
  readyTimeoutMs?: number;
  /**
   * The chain's start date (ISO 8601): block 0's timestamp, and so its hash. A chain started again
   * with the same date has the same genesis block. Now when omitted.
   */
  initialDate?: string;
}

/** The package folder holding hardhat.config.ts, from src/ (tests) or dist/src/ (built code). */
const PACKAGE_ROOT = [join(__dirname, '..'), join(__dirname, '..', '..')].find((dir) =>
  existsSync(join(dir, 'hardhat.config.ts')),
);

export async function isJsonRpcReady(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'net_version', params: [], id: 1 }),
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * One JSON-RPC call to a node: its result, or an error naming the method. `headers`: the embedded
 * chain's `writeHeaders`, for anything but reads.
 */
export async function jsonRpcCall(
  url: string,
  method: string,
  params: unknown[] = [],
  headers: Readonly<Record<string, string>> = {},
): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * Makes a Hardhat node mine like a real network: no block per transaction (automine off), one
 * block every `intervalMs`, empty or not, so transactions wait in the pool, fees move with the
 * base fee and confirmations take time. `intervalMs` 0 goes back to a block per transaction.
 * `headers`: the embedded chain's `writeHeaders` (these are writes).
 */
export async function useIntervalMining(
  url: string,
  intervalMs: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  await jsonRpcCall(url, 'evm_setAutomine', [intervalMs === 0], headers);
  await jsonRpcCall(url, 'evm_setIntervalMining', [intervalMs], headers);
}

/** Holds back mining (automine off): sent transactions wait in the pool until `resumeMining`. */
export async function holdMining(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  await jsonRpcCall(url, 'evm_setAutomine', [false], headers);
}

/**
 * Mines what waits in the pool, and every later transaction at once: automine first, since
 * turning it on does not mine a transaction that arrived while it was off.
 */
export async function resumeMining(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  await jsonRpcCall(url, 'evm_setAutomine', [true], headers);
  await jsonRpcCall(url, 'evm_mine', [], headers);
}

/** The chain's settings alone, which `hardhat node` is started with (hardhat.config.ts takes them too). */
const NODE_CONFIG = 'hardhat-node.config.js';

/**
 * Node.js arguments that make a child process end when its stdin, a pipe from this process,
 * closes: a parent that dies without stopping it (SIGKILL, a test runner ending its worker) takes
 * it along. Spawn the child with `stdio[0]` 'pipe' and leave that pipe open.
 */
export function exitWithParentArgs(): string[] {
  if (!PACKAGE_ROOT) throw new Error('exit-with-parent.js of @trustpoint/contracts not found');
  return ['--require', join(PACKAGE_ROOT, 'exit-with-parent.js')];
}

/** Starts `hardhat node` with this package's chain settings and resolves once it answers. */
export async function startHardhatNode(options: HardhatNodeOptions = {}): Promise<HardhatNode> {
  const host = options.host ?? '127.0.0.1';
  const asked = options.port ?? (await freePort(host));
  if (!PACKAGE_ROOT) throw new Error('hardhat.config.ts of @trustpoint/contracts not found');
  const cli = join(
    dirname(require.resolve('hardhat/package.json')),
    'internal',
    'cli',
    'bootstrap.js',
  );
  // The node's own configuration (the chain's settings, nothing to compile or type-check): the
  // full hardhat.config.ts would load the toolbox and TypeScript, twice the start-up work.
  const args = [cli, '--config', NODE_CONFIG, 'node', '--hostname', host, '--port', String(asked)];
  return startNodeProcess({
    name: 'hardhat node',
    host,
    port: asked,
    args,
    env: initialDateEnv(options),
    headers: {},
    readyTimeoutMs: options.readyTimeoutMs,
  });
}

/** A Hardhat node that answers only requests carrying `headers`. */
export interface KeyedHardhatNode extends HardhatNode {
  /** `Authorization: Bearer <key>`, the key made for this start. Never put them in a URL or a log. */
  headers: Readonly<Record<string, string>>;
}

/**
 * Starts the chain `startHardhatNode` starts, on 127.0.0.1 and a port the system gives, answering
 * only requests that carry the returned node's `headers` (HTTP 401 to anything else, which reaches
 * nothing): the embedded chain's node, which only its relay may use. The key is new on every start
 * and reaches the node through its environment, not its arguments (which every local user can
 * read); replies are those of `hardhat node` (Hardhat's own JSON-RPC handler answers them).
 */
export async function startKeyedHardhatNode(
  options: Pick<HardhatNodeOptions, 'initialDate' | 'readyTimeoutMs'> = {},
): Promise<KeyedHardhatNode> {
  if (!PACKAGE_ROOT) throw new Error('keyed-hardhat-node.js of @trustpoint/contracts not found');
  const key = randomBytes(32).toString('base64url');
  const headers = { authorization: `Bearer ${key}` };
  const node = await startNodeProcess({
    name: 'the chain node',
    host: '127.0.0.1',
    port: 0,
    args: [join(PACKAGE_ROOT, 'keyed-hardhat-node.js')],
    env: { ...initialDateEnv(options), TRUSTPOINT_NODE_KEY: key },
    headers,
    readyTimeoutMs: options.readyTimeoutMs,
  });
  return { ...node, headers };
}

function initialDateEnv(options: Pick<HardhatNodeOptions, 'initialDate'>): Record<string, string> {
  return options.initialDate === undefined
    ? {}
    : { TRUSTPOINT_CHAIN_INITIAL_DATE: options.initialDate };
}

interface NodeProcessOptions {
  /** For error messages. */
  name: string;
  host: string;
  /** The port asked for; 0: the one the node says it bound. */
  port: number;
  /** Node.js arguments after the exit-with-parent preload: the script and its arguments. */
  args: string[];
  /** Added to this process's environment. */
  env: Record<string, string>;
  /** What the readiness probe sends. */
  headers: Readonly<Record<string, string>>;
  readyTimeoutMs: number | undefined;
}

/**
 * Runs a node script that serves JSON-RPC and prints `JSON-RPC server at http://host:port/` once
 * it listens, and resolves once it answers there.
 */
async function startNodeProcess(options: NodeProcessOptions): Promise<HardhatNode> {
  const { host, name } = options;
  const child = spawn(process.execPath, [...exitWithParentArgs(), ...options.args], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', ...options.env },
    // stdin: the pipe whose end tells the node this process is gone.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    // Only the start of the log is useful to explain a failed start; the rest is dropped.
    if (output.length < 8_192) output += chunk.toString();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );

  // A parent that exits without stopping the node (a failed test, an uncaught error) takes it along.
  const killOnExit = () => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };

  // Ready once it says it listens (on the port it was given or, given 0, the one it bound: never
  // a port another process took meanwhile) and answers there.
  const listening = () => {
    const bound = /JSON-RPC server at http:\/\/[^\s/]+:(\d+)\//.exec(output)?.[1];
    return bound === undefined ? undefined : Number(bound);
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let port = options.port;
  let url = `http://${host}:${String(port)}`;
  for (;;) {
    const bound = listening();
    if (bound !== undefined) {
      port = bound;
      url = `http://${host}:${String(port)}`;
      if (await isJsonRpcReady(url, options.headers)) break;
    }
    if (child.exitCode !== null) throw new Error(`${name} exited early:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer on ${url} in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, port, process: child, stop };
}
