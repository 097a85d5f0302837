import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_FILE_NAME } from '../src/certify/certify-state.js';
import { EXIT } from '../src/exit-codes.js';
import {
  localTrustFile,
  startService,
  trustpoint,
  type RunningService,
} from './support/cli-fixture.js';

interface Summary {
  certified: number;
  skipped: number;
  failed: number;
  files: { path: string; outcome: string; certID?: string; reason?: string }[];
}

describe('trustpoint certify <folder> against a running service', () => {
  let service: RunningService;

  const certify = async (folder: string, args: string[] = []) => {
    const result = await trustpoint(['certify', folder, '--url', service.url, '--json', ...args], {
      TRUSTPOINT_TOKEN: service.running.token,
    });
    return {
      ...result,
      summary: result.code === 0 ? (JSON.parse(result.stdout) as Summary) : undefined,
    };
  };
  /** A folder of files whose content no other test certifies. */
  const folderOf = async (files: Record<string, string>) => {
    const folder = await mkdtemp(join(tmpdir(), 'trustpoint-certify-'));
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(folder, path, '..'), { recursive: true });
      await writeFile(join(folder, path), content);
    }
    return folder;
  };
  const unique = () => randomUUID();

  beforeAll(async () => {
    // The database backend does not matter to the command: the embedded default is enough.
    service = await startService('pglite');
  }, 120_000);

  afterAll(async () => {
    await service.running.stop();
  });

  it('when a folder is certified, then every file gets a certificate, hidden files are left out and the state names them', async () => {
    const folder = await folderOf({
      'a.txt': `a ${unique()}`,
      'sub/b.txt': `b ${unique()}`,
      '.hidden': 'not certified',
    });

    const { code, summary } = await certify(folder);
    const state = JSON.parse(await readFile(join(folder, STATE_FILE_NAME), 'utf8')) as {
      files: { path: string; certID: string }[];
    };

    expect(code).toBe(EXIT.ok);
    expect(summary).toMatchObject({ certified: 2, skipped: 0, failed: 0 });
    expect(summary?.files.map((file) => file.path)).toEqual(['a.txt', 'sub/b.txt']);
    expect(state.files.map((file) => file.path).sort()).toEqual(['a.txt', 'sub/b.txt']);
  });

  it('when it runs again after a file was added, then only the new file is certified and the others are skipped by hash', async () => {
    const folder = await folderOf({ 'a.txt': `a ${unique()}`, 'b.txt': `b ${unique()}` });
    await certify(folder);
    await writeFile(join(folder, 'c.txt'), `c ${unique()}`);

    const { code, summary } = await certify(folder);

    expect(code).toBe(EXIT.ok);
    expect(summary).toMatchObject({ certified: 1, skipped: 2, failed: 0 });
    expect(summary?.files.find((file) => file.path === 'a.txt')).toMatchObject({
      outcome: 'skipped',
      reason: 'in the state file',
    });
  });

  it('when the run was interrupted before it wrote its state, then the next run finds the certified files through the API by hash', async () => {
    const folder = await folderOf({ 'a.txt': `a ${unique()}`, 'b.txt': `b ${unique()}` });
    const first = await certify(folder);
    // As if stopped after the uploads but before the state was written.
    await rm(join(folder, STATE_FILE_NAME));

    const { code, summary } = await certify(folder);

    expect(code).toBe(EXIT.ok);
    expect(summary).toMatchObject({ certified: 0, skipped: 2 });
    expect(summary?.files.map((file) => file.certID)).toEqual(
      first.summary?.files.map((file) => file.certID),
    );
    expect(summary?.files.every((file) => file.reason === 'already certified')).toBe(true);
  });

  it('when two files have the same content, then one certificate covers both and nothing fails', async () => {
    const content = `same ${unique()}`;
    const folder = await folderOf({ 'one.txt': content, 'two.txt': content });

    const { code, summary } = await certify(folder);

    expect(code).toBe(EXIT.ok);
    expect(summary).toMatchObject({ certified: 1, skipped: 1, failed: 0 });
    expect(new Set(summary?.files.map((file) => file.certID)).size).toBe(1);
  });

  it('when the answer to an upload is lost on the way, then the retry with its derived Idempotency-Key gets the certificate the upload made, not a 409 nor a second one', async () => {
    // A relay to the service that cuts the first upload's connection once the answer starts.
    const target = new URL(service.url);
    let cut = false;
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      let dropAnswer = false;
      client.on('data', (chunk: Buffer) => {
        if (!cut && chunk.toString('latin1').startsWith('POST /cert/v2/certificates')) {
          cut = true;
          dropAnswer = true;
        }
      });
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        if (dropAnswer) client.destroy();
        else client.write(chunk);
      });
      upstream.on('end', () => client.end());
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end);
      upstream.on('error', end);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayUrl = `http://127.0.0.1:${String((relay.address() as net.AddressInfo).port)}${target.pathname === '/' ? '' : target.pathname}`;
    const folder = await folderOf({ 'lost.txt': `lost ${unique()}` });
    try {
      const result = await trustpoint(['certify', folder, '--url', relayUrl, '--json'], {
        TRUSTPOINT_TOKEN: service.running.token,
      });

      expect(cut).toBe(true);
      expect(result.code).toBe(EXIT.ok);
      const summary = JSON.parse(result.stdout) as Summary;
      expect(summary).toMatchObject({ certified: 1, skipped: 0, failed: 0 });
      // The next run finds that very certificate by hash: there is one.
      const again = await certify(folder);
      expect(again.summary?.files[0]?.certID).toBe(summary.files[0]?.certID);
    } finally {
      relay.close();
    }
  });

  it('when a certified file is verified with the CLI, then it matches the chain', async () => {
    const content = `verified ${unique()}`;
    const folder = await folderOf({ 'doc.txt': content });
    const { summary } = await certify(folder, ['--public']);
    const certID = summary?.files[0]?.certID ?? '';

    const verified = await trustpoint(
      [
        'verify',
        certID,
        '--url',
        service.url,
        '--file',
        join(folder, 'doc.txt'),
        '--rpc',
        `31337=${service.running.embeddedChain?.url ?? ''}`,
      ],
      { TRUSTPOINT_TRUST_FILE: await localTrustFile(service) },
    );

    expect(verified.code).toBe(EXIT.ok);
    expect(verified.stdout).toContain('data.fileHash from the file');
  });

  it('when the folder does not exist, then it is a usage error', async () => {
    const { code, stderr } = await certify(join(tmpdir(), `missing-${unique()}`));

    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('is not a folder');
  });

  it('when the token is refused, then it stops at once with exit code 3', async () => {
    const folder = await folderOf({ 'a.txt': `a ${unique()}` });

    const result = await trustpoint(['certify', folder, '--url', service.url], {
      TRUSTPOINT_TOKEN: 'not-a-token',
    });

    expect(result.code).toBe(EXIT.unauthorized);
  });
});
