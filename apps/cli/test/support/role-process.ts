import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The built `trustpoint` command, as an operator runs it. */
export const CLI = join(__dirname, '..', '..', 'dist', 'index.js');

export interface RoleProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * Runs `trustpoint <args>` as a child process with `env` added to this one's; `group`: in a
 * process group of its own, as a terminal's foreground job (signal it all with `-pid`).
 */
export function trustpointProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  { group = false }: { group?: boolean } = {},
): RoleProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  return { child, output: () => text, exited };
}

/** Waits until the process prints that it is running; fails with its output if it exits first. */
/** Runs a command to its end: its exit code and everything it wrote. */
export async function runTrustpoint(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const process = trustpointProcess(args, env);
  const code = await process.exited;
  return { code, output: process.output() };
}

export async function untilRunning(role: RoleProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void role.exited.then((code) => (exitCode = code));
  while (!role.output().includes('is running')) {
    if (exitCode !== undefined) {
      throw new Error(`exited with ${String(exitCode)} before running:\n${role.output()}`);
    }
    if (Date.now() > deadline) throw new Error(`not running in time:\n${role.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
