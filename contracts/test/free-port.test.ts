// Ports for the services tests and benches start: drawn outside the system's own range and
// reserved across processes, so no connection and no other draw takes one before it is bound or
// while its service restarts.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../src/free-port';

interface Drawer {
  /** The ports drawn, once all are. */
  ports: Promise<number[]>;
  /** Lets the process exit (its stdin closes) and waits for it. */
  exit: () => Promise<number | null>;
}

/** A process drawing `count` ports, holding them until told to exit. */
function drawIn(count: number): Drawer {
  const script = `
    const { freePort } = require(${JSON.stringify(join(__dirname, '..', 'src', 'free-port'))});
    (async () => {
      const ports = [];
      for (let i = 0; i < ${String(count)}; i += 1) ports.push(await freePort());
      console.log(JSON.stringify(ports));
      process.stdin.resume();
    })();
  `;
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: join(__dirname, '..'),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ports = new Promise<number[]>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.endsWith('\n')) resolve(JSON.parse(output) as number[]);
    });
    void exited.then((code) => {
      reject(new Error(`drawing ports exited with ${String(code)}`));
    });
  });
  return {
    ports,
    exit: () => {
      child.stdin.end();
      return exited;
    },
  };
}

const reservation = (port: number) => join(tmpdir(), 'trustpoint-ports', String(port));

describe('freePort', function () {
  this.timeout(60_000);

  it('should hand out a port below the system range that a server can listen on', async () => {
    const port = await freePort();

    expect(port).to.be.within(10_000, 32_767);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('should never hand the same port to two processes drawing at once, and release them at exit', async () => {
    // 600 draws each from 22,768 ports: about 16 shared by chance without the reservations.
    const [one, other] = [drawIn(600), drawIn(600)];
    const [first, second] = await Promise.all([one.ports, other.ports]);
    const exits = await Promise.all([one.exit(), other.exit()]);

    const shared = first.filter((port) => second.includes(port));
    expect(exits).to.deep.equal([0, 0]);
    expect(first).to.have.length(600);
    expect(new Set(first).size).to.equal(600);
    expect(shared).to.deep.equal([]);
    expect([...first, ...second].filter((port) => existsSync(reservation(port)))).to.deep.equal([]);
  });

  it('should keep a port reserved by this process from other processes', async () => {
    const held = await freePort();

    const drawer = drawIn(2_000);
    const drawn = await drawer.ports;
    await drawer.exit();

    expect(existsSync(reservation(held))).to.equal(true);
    expect(drawn).to.not.include(held);
  });
});
