import { Command, CommanderError } from 'commander';
import { shownText } from '@trustpoint/verifier';
import { accountCommand } from './account/account-command.js';
import { domainsCommand } from './domains/domains-command.js';
import { adminCommand } from './admin/admin-command.js';
import { certifyCommand } from './certify/certify-command.js';
import { CliError } from './cli-error.js';
import { EXIT, EXIT_CODES_HELP, type ExitCode } from './exit-codes.js';
import { SERVICE_TIMEOUT_HELP } from './service-timeout.js';
import { initAdminCommand } from './init-admin-command.js';
import type { Io } from './output.js';
import { migrateCommand } from './migrate-command.js';
import { reconcileCommand } from './reconcile/reconcile-command.js';
import { serveCommand } from './serve-command.js';
import { startCommand } from './start-command.js';
import { trustCommand } from './trust/trust-command.js';
import { verifyCommands } from './verify/verify-command.js';
import { withholdCommand } from './withhold/withhold-command.js';

/** The `trustpoint` command and its subcommands, writing to `io`. */
export function createProgram(io: Io): Command {
  const program = new Command('trustpoint')
    .description('Trustpoint: certify files, content and assets on EVM blockchains')
    .configureOutput({
      writeOut: (text) => {
        io.stdout(text);
      },
      writeErr: (text) => {
        io.stderr(text);
      },
    })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', `${EXIT_CODES_HELP}\n\n${SERVICE_TIMEOUT_HELP}`);
  startCommand(program);
  serveCommand(program);
  migrateCommand(program, io);
  initAdminCommand(program, io);
  adminCommand(program, io);
  verifyCommands(program, io);
  withholdCommand(program, io);
  trustCommand(program, io);
  certifyCommand(program, io);
  accountCommand(program, io);
  domainsCommand(program, io);
  reconcileCommand(program, io);
  return program;
}

/** Whether the last argument parsed asked for JSON, so errors are JSON too. */
const wantsJson = (argv: readonly string[]) => argv.includes('--json');

/**
 * Text as a terminal shows it: the control, bidirectional and invisible characters it would obey
 * or hide written out as escapes (`shownText`, as the web verifier shows them). A certificate's
 * fields are printed, and a forger's `data.issuer` holding an escape sequence could otherwise
 * redraw the screen (a MISMATCH shown as `Verdict: VERIFIED`), reorder a line or hide a character.
 */
export function safeForTerminal(text: string): string {
  return shownText(text);
}

/**
 * Runs `trustpoint <argv>` and answers its exit code (see `EXIT`); commands that keep running
 * (`start`) answer once they are up.
 */
export async function run(argv: readonly string[], given: Io): Promise<ExitCode> {
  const io: Io = {
    ...given,
    stdout: (text) => {
      given.stdout(safeForTerminal(text));
    },
    stderr: (text) => {
      given.stderr(safeForTerminal(text));
    },
  };
  try {
    await createProgram(io).parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version asked for are not failures; commander has already printed its message.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      if (wantsJson(argv)) {
        io.stderr(`${JSON.stringify({ error: error.message, body: error.body ?? null })}\n`);
      } else io.stderr(`error: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
