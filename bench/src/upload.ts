// Upload of a 1 GiB file to the certificate API: how fast the API hashes it compared with
// `sha256sum` on the same file (goal >= 0.8), and how much the API process's memory grows meanwhile
// (goal <= 64 MiB). The API runs as `trustpoint start` does in a child process (embedded chain,
// PGlite unless DATABASE_URL is set), so its resident memory is sampled apart from this client's.
// Run: npm run bench:upload   (BENCH_UPLOAD_MIB changes the size, 1024 by default)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@trustpoint/contracts';

const MIB = 1024 * 1024;
const FILE_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? '1024');
const SAMPLE_EVERY_MS = 10;
const TRUSTPOINT = resolve(__dirname, '../../apps/cli/dist/index.js');

async function generateFile(path: string, mib: number): Promise<void> {
  // 16 MiB of random bytes written over and over: content does not change hashing speed.
  const block = randomBytes(16 * MIB);
  const file = await open(path, 'w');
  try {
    for (let written = 0; written < mib; written += 16) {
      await file.write(block, 0, Math.min(16, mib - written) * MIB);
    }
  } finally {
    await file.close();
  }
}

/**
 * Best of `runs` wall-clock seconds of a hashing command on the file (the first run also warms the
 * page cache), and the digest it printed (the last word-free token of its output).
 */
function commandSeconds(
  command: string,
  args: string[],
  runs: number,
): { seconds: number; digest: string } {
  let best = Infinity;
  let digest = '';
  for (let i = 0; i < runs; i += 1) {
    const started = process.hrtime.bigint();
    const output = execFileSync(command, args, { encoding: 'utf8' });
    digest = /[0-9a-f]{64}/.exec(output)?.[0] ?? '';
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return { seconds: best, digest };
}

/** OpenSSL's SHA-256 (what Node's crypto uses) on the same file, when the command exists. */
function opensslSeconds(path: string): { seconds: number; digest: string } | undefined {
  try {
    return commandSeconds('openssl', ['dgst', '-sha256', path], 2);
  } catch {
    return undefined;
  }
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return Number(kib ?? 0) * 1024;
}

/** Starts the whole service (`trustpoint start`) and waits for the token it prints. */
async function startApi(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; token: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [TRUSTPOINT, 'start'], {
    env: {
      ...process.env,
      TRUSTPOINT_DATA_DIR: dataDir,
      TRUSTPOINT_TRUST_FILE: join(dataDir, 'trust.json'),
      CHAIN_PORT: String(await freePort()),
      CERT_API_PORT: String(port),
      MAX_FILE_BYTES: String((FILE_MIB + 64) * MIB),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const token = await new Promise<string>((resolveToken, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /export TOKEN=(\S+)/.exec(output);
      if (match?.[1]) resolveToken(match[1]);
    });
    child.once('exit', (code) => {
      reject(new Error(`the service exited (${String(code)}) before it was ready:\n${output}`));
    });
  });
  child.stdout.resume();
  return { child, url: `http://127.0.0.1:${String(port)}/cert/v2`, token };
}

interface UploadTimes {
  /** Until the last byte of the body was accepted by the API (it reads only as fast as it hashes). */
  sentSeconds: number;
  /** Until the 201, which also waits for the trustpoint to be mined. */
  answeredSeconds: number;
  status: number;
  body: string;
}

/** Streams the file as multipart/form-data, never holding it in this process's memory. */
function upload(
  api: { url: string; token: string },
  path: string,
  name: string,
): Promise<UploadTimes> {
  const boundary = `----trustpoint-bench-${randomBytes(8).toString('hex')}`;
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  return new Promise((resolveUpload, reject) => {
    let sentSeconds = 0;
    const req = http.request(`${api.url}/certificates?type=file&networkId=31337`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${api.token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolveUpload({
          sentSeconds,
          answeredSeconds: elapsed(),
          status: res.statusCode ?? 0,
          body,
        });
      });
    });
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="body"\r\n\r\n` +
        `${JSON.stringify({ name, description: 'upload benchmark' })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="fileInput"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const file = createReadStream(path, { highWaterMark: MIB });
    file.on('error', reject);
    file.pipe(req, { end: false });
    file.on('end', () => {
      req.end(`\r\n--${boundary}--\r\n`, () => {
        sentSeconds = elapsed();
      });
    });
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'trustpoint-bench-upload-'));
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  try {
    const path = join(dir, 'upload.bin');
    console.log(`Generating a ${String(FILE_MIB)} MiB file in ${dir} ...`);
    await generateFile(path, FILE_MIB);
    const reference = commandSeconds('sha256sum', [path], 3);
    const openssl = opensslSeconds(path);

    console.log('Starting the service (trustpoint start in a child process) ...');
    api = await startApi(join(dir, 'data'));
    const pid = api.child.pid ?? 0;
    // A small upload first, so that lazy start-up work is not counted as growth.
    const warmPath = join(dir, 'warm.bin');
    await generateFile(warmPath, 16);
    const warm = await upload(api, warmPath, 'warm-up');
    if (warm.status !== 201)
      throw new Error(`warm-up upload failed: ${String(warm.status)} ${warm.body}`);

    const baseline = await rssOf(pid);
    let peak = baseline;
    const sampler = setInterval(() => {
      void rssOf(pid).then(
        (rss) => (peak = Math.max(peak, rss)),
        () => undefined,
      );
    }, SAMPLE_EVERY_MS);
    const times = await upload(api, path, `upload-${String(Date.now())}`);
    clearInterval(sampler);
    if (times.status !== 201)
      throw new Error(`upload failed: ${String(times.status)} ${times.body}`);
    const certified = (
      JSON.parse(times.body) as { data: { data: { content: { file: { size: number } } } } }
    ).data.data.content.file.size;

    const bytes = FILE_MIB * MIB;
    const mibPerSecond = (seconds: number) => (bytes / MIB / seconds).toFixed(0);
    const ratio = reference.seconds / times.sentSeconds;
    const growthMib = (peak - baseline) / MIB;
    console.log(`
Upload of ${String(FILE_MIB)} MiB (${String(certified)} bytes certified, sha256 ${reference.digest})
  sha256sum on the file (best of 3)   ${reference.seconds.toFixed(2)} s  ${mibPerSecond(reference.seconds)} MiB/s
  openssl dgst -sha256 (best of 2)    ${openssl ? `${openssl.seconds.toFixed(2)} s  ${mibPerSecond(openssl.seconds)} MiB/s (reference only)` : 'not installed'}
  API received and hashed it in       ${times.sentSeconds.toFixed(2)} s  ${mibPerSecond(times.sentSeconds)} MiB/s (HTTP + multipart + hashing)
  API answered 201 after              ${times.answeredSeconds.toFixed(2)} s  (includes mining the trustpoint)
  throughput ratio to sha256sum       ${ratio.toFixed(2)}   goal >= 0.8  ${ratio >= 0.8 ? 'met' : 'NOT met'}
  API process RSS                     ${(baseline / MIB).toFixed(0)} MiB before, ${(peak / MIB).toFixed(0)} MiB peak (sampled every ${String(SAMPLE_EVERY_MS)} ms)
  peak memory growth                  ${growthMib.toFixed(1)} MiB   goal <= 64 MiB  ${growthMib <= 64 ? 'met' : 'NOT met'}
`);
  } finally {
    if (api) {
      const { child } = api;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
