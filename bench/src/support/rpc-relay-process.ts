// Starts, SIGKILLs and restarts the JSON-RPC relay (rpc-relay.ts) in front of a chain node.
import { spawn, type ChildProcess } from 'node:child_process';
import { exitWithParentArgs } from '@trustpoint/contracts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The compiled relay: beside this file once built, or in dist when this file runs from src. */
function relayScript(): string {
  const beside = join(__dirname, 'rpc-relay.js');
  if (existsSync(beside)) return beside;
  const built = join(__dirname, '..', '..', 'dist', 'support', 'rpc-relay.js');
  if (existsSync(built)) return built;
  throw new Error('Build @trustpoint/bench first: dist/support/rpc-relay.js is missing');
}

export interface RpcRelay {
  /** What the services are given as the node's URL. */
  url: string;
  /** SIGKILL, then a new relay on the same port; how long the port refused connections. */
  killAndRestart(): Promise<{ downMs: number }>;
  stop(): Promise<void>;
}

async function spawnRelay(port: number, nodeUrl: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...exitWithParentArgs(), relayScript(), String(port), nodeUrl],
    {
      // stdin: the pipe whose end tells the process the bench is gone.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!output.includes('relay listening')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the JSON-RPC relay did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGKILL');
  });
}

export async function startRpcRelay(port: number, nodeUrl: string): Promise<RpcRelay> {
  let child = await spawnRelay(port, nodeUrl);
  return {
    url: `http://127.0.0.1:${String(port)}`,
    async killAndRestart() {
      const down = Date.now();
      await killed(child);
      child = await spawnRelay(port, nodeUrl);
      return { downMs: Date.now() - down };
    },
    stop: () => killed(child),
  };
}
