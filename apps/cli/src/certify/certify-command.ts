import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { hashFileStream } from '@trustpoint/verifier';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { resolveConnection, type ConnectionOptions } from '../admin/connection.js';
import { CliError, usageError } from '../cli-error.js';
import { EXIT, exitCodeOfStatus } from '../exit-codes.js';
import { table, type Io } from '../output.js';
import { CertifyState, type CertifiedFile } from './certify-state.js';
import { folderFiles } from './folder-files.js';

interface CertifyOptions extends ConnectionOptions {
  network: string;
  public: boolean;
  description?: string;
  concurrency: string;
  json: boolean;
}

type Outcome =
  | { path: string; outcome: 'certified'; certID: string; fileHash: string }
  | { path: string; outcome: 'skipped'; certID: string; fileHash: string; reason: string }
  | { path: string; outcome: 'failed'; error: string };

interface ApiAnswer {
  status: number;
  body: unknown;
}

const certIdOf = (body: unknown): string | undefined => {
  const data = (body as { data?: { certID?: unknown } } | undefined)?.data;
  return typeof data?.certID === 'string' ? data.certID : undefined;
};

const messageOf = (answer: ApiAnswer): string => {
  const body = answer.body as { message?: unknown } | undefined;
  return `${answer.status} ${typeof body?.message === 'string' ? body.message : ''}`.trim();
};

/** `trustpoint certify <folder>`: every file of a folder through the certificate API. */
export function certifyCommand(program: Command, io: Io): void {
  program
    .command('certify')
    .description(
      'certify every file of a folder (recursively; hidden files left out) through the certificate API, with a progress bar and a summary; run it again to resume: files already certified are skipped by their hash',
    )
    .argument('<folder>', 'the folder whose files to certify')
    .option('--network <networkId>', 'the network to anchor on', '31337')
    .option('--public', 'make the certificates public (readable by anyone with the certID)', false)
    .option('--description <text>', 'description of every certificate (default: the folder name)')
    .option('--concurrency <n>', 'files uploaded at a time', '4')
    .option(
      '--url <url>',
      "the certificate API's origin (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
    )
    .option(
      '--token <jwt>',
      "an access token or API key (env TRUSTPOINT_TOKEN; default the local user's, left by a service started here)",
    )
    .option('--data-dir <dir>', 'where a local service keeps its data (env TRUSTPOINT_DATA_DIR)')
    .option('--json', 'print the summary as JSON, for scripts', false)
    .addHelpText(
      'after',
      `
What was certified is kept in <folder>/.trustpoint-certified.json (file hash, certID, path). A
file whose hash is there is skipped; one the service already holds (a run stopped before it
wrote the state, or the same content certified before) is found by its hash and skipped too. A
changed file has a new hash and is certified again. Exit code 1 when a file failed.`,
    )
    .action(async (folderArgument: string, options: CertifyOptions) => {
      const folder = resolve(folderArgument);
      if (!(await stat(folder).catch(() => undefined))?.isDirectory()) {
        throw usageError(`${folderArgument} is not a folder`);
      }
      const concurrency = Number(options.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) {
        throw usageError('--concurrency must be an integer from 1 to 32');
      }
      if (!/^\d+$/.test(options.network)) throw usageError('--network must be a network id');
      const connection = await resolveConnection(options, io.env);
      const base = `${connection.url.replace(/\/+$/, '')}/cert/v2`;
      const state = await CertifyState.load(folder);
      const files = await folderFiles(folder);
      const description = options.description ?? `Certified from ${basename(folder)}`;

      const call = async (path: string, init: RequestInit = {}): Promise<ApiAnswer> => {
        let response: Response;
        try {
          response = await fetch(`${base}${path}`, {
            ...init,
            headers: { Authorization: `Bearer ${connection.token}`, Accept: 'application/json' },
          });
        } catch (reason) {
          throw new CliError(
            `cannot reach the service at ${connection.url}: ${reason instanceof Error ? reason.message : String(reason)}`,
            EXIT.unreachable,
          );
        }
        const answer = { status: response.status, body: await response.json().catch(() => null) };
        // A refused token fails every file alike: stop at once rather than report each.
        if (answer.status === 401) {
          throw new CliError(
            `the service refused the token: ${messageOf(answer)}`,
            EXIT.unauthorized,
          );
        }
        return answer;
      };
      const findByHash = async (fileHash: string) => {
        const answer = await call(`/certificates/fileHash/${fileHash}`);
        return answer.status === 200 ? certIdOf(answer.body) : undefined;
      };

      const certifyOne = async (path: string): Promise<Outcome> => {
        const absolute = join(folder, path);
        const { fileHash } = await hashFileStream(createReadStream(absolute), {
          createSha256: () => createHash('sha256'),
        });
        const known = state.find(fileHash);
        if (known) {
          return {
            path,
            outcome: 'skipped',
            certID: known.certID,
            fileHash,
            reason: 'in the state file',
          };
        }
        const record = async (certID: string) => {
          const file: CertifiedFile = {
            fileHash,
            certID,
            path,
            networkId: Number(options.network),
            certifiedAt: new Date().toISOString(),
          };
          await state.add(file);
        };
        const existing = await findByHash(fileHash);
        if (existing !== undefined) {
          await record(existing);
          return {
            path,
            outcome: 'skipped',
            certID: existing,
            fileHash,
            reason: 'already certified',
          };
        }
        const form = new FormData();
        // Streamed from disk, not read into memory.
        form.append('fileInput', await openAsBlob(absolute), basename(path));
        form.append('body', JSON.stringify({ name: path, description, public: options.public }));
        const answer = await call(`/certificates?type=file&networkId=${options.network}`, {
          method: 'POST',
          body: form,
        });
        const certID = certIdOf(answer.body);
        if ((answer.status === 201 || answer.status === 202) && certID !== undefined) {
          await record(certID);
          return { path, outcome: 'certified', certID, fileHash };
        }
        if (answer.status === 409) {
          // Certified meanwhile (the same content twice in the folder, or another run).
          const again = await findByHash(fileHash);
          if (again !== undefined) {
            await record(again);
            return {
              path,
              outcome: 'skipped',
              certID: again,
              fileHash,
              reason: 'already certified',
            };
          }
        }
        if (exitCodeOfStatus(answer.status) === EXIT.unauthorized) {
          throw new CliError(messageOf(answer), EXIT.unauthorized, answer.body);
        }
        return { path, outcome: 'failed', error: messageOf(answer) };
      };

      const bar = new SingleBar({
        format:
          'certifying [{bar}] {value}/{total} files | {certified} certified, {skipped} skipped, {failed} failed',
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      });
      const counts = { certified: 0, skipped: 0, failed: 0 };
      bar.start(files.length, 0, counts);
      const outcomes: Outcome[] = [];
      // Same content twice in the folder: one upload at a time per hash would need hashing first;
      // the 409 path above records the second as skipped instead.
      let next = 0;
      const worker = async () => {
        while (next < files.length) {
          const path = files[next++] as string;
          const outcome = await certifyOne(path).catch((error: unknown) => {
            if (error instanceof CliError) throw error;
            return {
              path,
              outcome: 'failed' as const,
              error: error instanceof Error ? error.message : String(error),
            };
          });
          outcomes.push(outcome);
          counts[outcome.outcome] += 1;
          bar.increment(1, counts);
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
      } finally {
        bar.stop();
      }

      outcomes.sort((a, b) => a.path.localeCompare(b.path));
      const failed = outcomes.filter((outcome) => outcome.outcome === 'failed');
      if (options.json) {
        io.stdout(
          `${JSON.stringify({ folder, state: state.path, ...counts, files: outcomes }, null, 2)}\n`,
        );
      } else {
        io.stdout(
          `${[
            `${files.length} files in ${folder}: ${counts.certified} certified, ${counts.skipped} already certified (skipped), ${counts.failed} failed`,
            `State: ${state.path}`,
            table(outcomes, [
              { title: 'File', value: (row) => row.path },
              { title: 'Outcome', value: (row) => row.outcome },
              {
                title: 'certID or error',
                value: (row) => (row.outcome === 'failed' ? row.error : row.certID),
              },
            ]),
          ].join('\n')}\n`,
        );
      }
      if (failed.length > 0) {
        throw new CliError(`${failed.length} of ${files.length} files failed`, EXIT.failure);
      }
    });
}
