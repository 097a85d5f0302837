import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { hashFileStream } from '@trustpoint/verifier';
import {
  TrustpointApiError,
  TrustpointAuthenticationError,
  TrustpointConflictError,
  TrustpointConnectionError,
} from '@trustpoint/sdk';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { resolveConnection, type ConnectionOptions } from '../admin/connection.js';
import { CliError, usageError } from '../cli-error.js';
import { EXIT, exitCodeOfStatus } from '../exit-codes.js';
import { table, type Io } from '../output.js';
import { cliErrorOf, serviceClient } from '../service-client.js';
import { certifyKey } from './certify-key.js';
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

const messageOf = (error: TrustpointApiError): string =>
  `${String(error.status)} ${error.message}`.trim();

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
changed file has a new hash and is certified again. Each upload carries an Idempotency-Key made
from the file's hash and its certificate's fields: an upload retried (a dropped connection, a
5xx) or sent again by a rerun gets the certificate it made, never a second one. Exit code 1 when
a file failed.`,
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
      const state = await CertifyState.load(folder);
      const files = await folderFiles(folder);
      const description = options.description ?? `Certified from ${basename(folder)}`;

      // No timeout: a large file may take long to upload.
      const { cert } = serviceClient({
        certUrl: `${connection.url.replace(/\/+$/, '')}/cert/v2`,
        token: connection.token,
        timeoutMs: undefined,
      });
      /**
       * A refused token fails every file alike: stop at once rather than report each. So does a
       * service that cannot be reached.
       */
      const stopOn = (error: unknown): void => {
        if (error instanceof TrustpointAuthenticationError) {
          throw new CliError(
            `the service refused the token: ${messageOf(error)}`,
            EXIT.unauthorized,
            error.body,
          );
        }
        if (error instanceof TrustpointConnectionError) cliErrorOf(error, 'certify');
        if (
          error instanceof TrustpointApiError &&
          exitCodeOfStatus(error.status) === EXIT.unauthorized
        ) {
          throw new CliError(messageOf(error), EXIT.unauthorized, error.body);
        }
      };
      const findByHash = async (fileHash: string) => {
        try {
          return (await cert.getCertificate(fileHash, { by: 'fileHash' })).certID;
        } catch (error) {
          stopOn(error);
          // Not found, or an answer that cannot tell: certify it, a 409 settles it then.
          if (error instanceof TrustpointApiError) return undefined;
          throw error;
        }
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
        let certID: string;
        try {
          const created = await cert.createFileCertificate(
            {
              // Streamed from disk, not read into memory.
              file: await openAsBlob(absolute),
              fileName: basename(path),
              body: { name: path, description, public: options.public },
            },
            {
              networkId: Number(options.network),
              idempotencyKey: certifyKey({
                fileHash,
                path,
                description,
                public: options.public,
                networkId: options.network,
              }),
            },
          );
          certID = created.record.certID;
        } catch (error) {
          stopOn(error);
          if (!(error instanceof TrustpointApiError)) throw error;
          if (error instanceof TrustpointConflictError) {
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
          return { path, outcome: 'failed', error: messageOf(error) };
        }
        await record(certID);
        return { path, outcome: 'certified', certID, fileHash };
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
