import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chainWriteHeaders, readChainWriteKey } from '@trustpoint/registry-abi';
import { exitWithParentArgs, isJsonRpcReady } from './hardhat-node';

/** The embedded chain in a child process of its own, so that it can be killed like a real node. */
export interface LocalChainProcess {
  url: string;
  /** The chain's `writeHeaders` (see `LocalChain`), read from its data directory. */
  writeHeaders: Readonly<Record<string, string>>;
  process: ChildProcess;
  /** SIGKILL to the whole process group: relay and node die without any cleanup. */
  kill(): Promise<void>;
  /** Ctrl-C equivalent. */
  stop(): Promise<void>;
}

/** The compiled local-chain script; the tests of this package run it from source instead. */
function scriptPath(): string {
  const compiled = join(__dirname, '..', 'scripts', 'local-chain.js');
  if (existsSync(compiled)) return compiled;
  throw new Error('Build @trustpoint/contracts first: dist/scripts/local-chain.js is missing');
}

/**
 * Starts `local-chain` (journaled Hardhat node with the registries deployed and recorded in
 * `<dataDir>/deployments.json`) and resolves once it answers JSON-RPC and the deployment is recorded.
 */
export async function startLocalChainProcess(options: {
  dataDir: string;
  port: number;
  readyTimeoutMs?: number;
}): Promise<LocalChainProcess> {
  const url = `http://127.0.0.1:${String(options.port)}`;
  const child = spawn(process.execPath, [...exitWithParentArgs(), scriptPath()], {
    env: { ...process.env, CHAIN_PORT: String(options.port), TRUSTPOINT_DATA_DIR: options.dataDir },
    detached: true,
    // stdin: the pipe whose end tells the chain this process is gone; stderr: why it failed.
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  // The last lines it wrote, for the error when it ends before it is ready.
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2_000);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const deployments = join(options.dataDir, 'deployments.json');
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (!((await isJsonRpcReady(url)) && existsSync(deployments))) {
    if (child.exitCode !== null) {
      throw new Error(
        `local chain exited with code ${String(child.exitCode)}: ${stderr.trim() || '(nothing on stderr)'}`,
      );
    }
    if (Date.now() > deadline) {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      throw new Error(`local chain did not start on ${url} in time`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const writeKey = await readChainWriteKey(join(options.dataDir, 'chain'));
  if (writeKey === undefined)
    throw new Error(`local chain left no write key in ${options.dataDir}`);
  const signal = async (name: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(name === 'SIGKILL' ? -child.pid : child.pid, name);
    } catch {
      return;
    }
    await exited;
  };
  return {
    url,
    writeHeaders: chainWriteHeaders(writeKey),
    process: child,
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
}
