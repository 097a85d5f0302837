import { existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
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

export async function isJsonRpcReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
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
  const args = [
    ...exitWithParentArgs(),
    cli,
    '--config',
    NODE_CONFIG,
    'node',
    '--hostname',
    host,
    '--port',
    String(asked),
  ];
  const child = spawn(process.execPath, args, {
    cwd: PACKAGE_ROOT,
    env: {
      ...process.env,
      HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
      ...(options.initialDate === undefined
        ? {}
        : { TRUSTPOINT_CHAIN_INITIAL_DATE: options.initialDate }),
    },
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
  let port = asked;
  let url = `http://${host}:${String(port)}`;
  for (;;) {
    const bound = listening();
    if (bound !== undefined) {
      port = bound;
      url = `http://${host}:${String(port)}`;
      if (await isJsonRpcReady(url)) break;
    }
    if (child.exitCode !== null) throw new Error(`hardhat node exited early:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hardhat node did not answer on ${url} in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, port, process: child, stop };
}
