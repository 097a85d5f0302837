// The preload that ends a child process with the process that started it (its stdin pipe closes).
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { exitWithParentArgs } from '../src/hardhat-node';

/** A child started as the chain node and the benches' service processes are: the preload, a pipe. */
function child(script: string) {
  const started = spawn(process.execPath, [...exitWithParentArgs(), '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => started.once('exit', resolve));
  return { started, exited, output: () => output };
}

describe('exit-with-parent', function () {
  this.timeout(30_000);

  it('should end the child when its stdin pipe from the parent closes', async () => {
    // A child that would otherwise run for a minute.
    const running = child('setTimeout(() => {}, 60_000); console.log("up");');
    while (!running.output().includes('up'))
      await new Promise((resolve) => setTimeout(resolve, 20));

    const closedAt = Date.now();
    running.started.stdin.end();
    const code = await running.exited;

    expect(code).to.equal(0);
    expect(Date.now() - closedAt).to.be.below(10_000);
  });

  it('should leave the worker threads of the child running while the pipe is open', async () => {
    // `serve all` runs its anchoring in a worker thread, which inherits the preload.
    const running = child(`
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(
        'setTimeout(() => require("node:worker_threads").parentPort.postMessage("alive"), 500)',
        { eval: true },
      );
      worker.on('message', (message) => { console.log('worker ' + message); process.exit(0); });
      worker.on('exit', (code) => { console.log('worker exited with ' + code); process.exit(3); });
    `);

    const code = await running.exited;

    expect(running.output()).to.contain('worker alive');
    expect(code).to.equal(0);
  });
});
