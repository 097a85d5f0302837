import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where free ports are drawn from: below the range the system hands out on its own (Linux 32768
 * and up, macOS and Windows 49152 and up), for listeners asking for port 0 and for the local end
 * of every outgoing connection. A port drawn there could be taken by any connection on the
 * machine between the draw and the bind, or while a service holding it restarts; here only
 * another draw can take it, and draws reserve what they hand out.
 */
const FIRST_PORT = 10_000;
const LAST_PORT = 32_767;

/** One file per port handed out, holding the process id it was handed to, shared by processes. */
const RESERVATIONS = join(tmpdir(), 'trustpoint-ports');

const reservedHere = new Set<number>();
let releaseAtExit = false;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Reserves `port` for this process until it exits: false when a live process holds it. A
 * reservation left by a process that died without releasing it is taken over.
 */
function reserve(port: number): boolean {
  const file = join(RESERVATIONS, String(port));
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      reservedHere.add(port);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: number;
    try {
      holder = Number(readFileSync(file, 'utf8'));
    } catch {
      continue; // released meanwhile
    }
    // A file still empty is being written by its creator.
    if (holder === 0 || isAlive(holder)) return false;
    try {
      unlinkSync(file);
    } catch {
      // taken over by another process meanwhile: the next open says by whom
    }
  }
  return false;
}

function releaseAll(): void {
  for (const port of reservedHere) {
    try {
      unlinkSync(join(RESERVATIONS, String(port)));
    } catch {
      // already gone
    }
  }
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, host, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A port nothing listens on, for a server this process or a child of it is about to start: drawn
 * outside the system's own range and reserved until this process exits, so it stays this caller's
 * across a restart of that server. Meant for tests and benchmarks on one machine.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  mkdirSync(RESERVATIONS, { recursive: true });
  if (!releaseAtExit) {
    process.once('exit', releaseAll);
    releaseAtExit = true;
  }
  const span = LAST_PORT - FIRST_PORT + 1;
  const start = Math.floor(Math.random() * span);
  for (let offset = 0; offset < span; offset += 1) {
    const port = FIRST_PORT + ((start + offset) % span);
    if (reservedHere.has(port) || !reserve(port)) continue;
    if (await canListen(port, host)) return port;
    // Something outside the reservations listens there: keep it reserved, so no draw tries it again.
  }
  throw new Error(`No free port between ${String(FIRST_PORT)} and ${String(LAST_PORT)}`);
}
