// Trustpoint processes started as an operator starts them (`trustpoint serve <role>`, the built
// command), with their resident memory read from /proc, for benchmarks that compare deployments.
import { spawn, type ChildProcess } from 'node:child_process';
import { exitWithParentArgs } from '@trustpoint/contracts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const CLI = join(__dirname, '..', '..', '..', 'apps', 'cli', 'dist', 'index.js');

/**
 * The Node.js options the service runs with where we start it (`npm start` in package.json, the
 * image's entrypoint in the Dockerfile): a young generation of 2 x 32 MiB.
 */
export const SERVICE_NODE_OPTIONS = ['--max-semi-space-size=32'];

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resident memory now and at its highest so far (VmRSS, VmHWM), in MiB. */
  memory(): Promise<{ rssMiB: number; peakMiB: number }>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `trustpoint <args>` and resolves once it prints that it is running. */
export async function startServiceProcess(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_OPTIONS, ...exitWithParentArgs(), CLI, ...args],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      // stdin: the pipe whose end tells the process the bench is gone.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    });
  });
  const deadline = Date.now() + 180_000;
  while (!text.includes('is running')) {
    if (exitCode !== undefined || Date.now() > deadline) {
      throw new Error(`${name} did not start:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    name,
    child,
    output: () => text,
    exited,
    async memory() {
      const status = await readFile(`/proc/${String(child.pid)}/status`, 'utf8');
      const kib = (field: string) =>
        Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `trustpoint <args>` to completion; rejects with its output unless it exits 0. */
export async function runServiceCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`trustpoint ${args.join(' ')} exited ${String(code)}:\n${text}`);
}
