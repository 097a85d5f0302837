import type { Command } from 'commander';
import { resolveConnection, type ConnectionOptions } from '../admin/connection.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { record, table, type Io } from '../output.js';
import { cliErrorOf, serviceClient } from '../service-client.js';

interface DomainsOptions extends ConnectionOptions {
  json: boolean;
}

type IssuerDomain = Awaited<
  ReturnType<ReturnType<typeof serviceClient>['cert']['claimIssuerDomain']>
>;

const CONNECTION_HELP = [
  [
    '--url <url>',
    "the certificate API's origin (env TRUSTPOINT_URL; default http://127.0.0.1:$CERT_API_PORT or :8080)",
  ],
  [
    '--token <jwt>',
    "your access token or API key (env TRUSTPOINT_TOKEN; default the local user's, left by a service started here)",
  ],
  ['--data-dir <dir>', 'where a local service keeps its data (env TRUSTPOINT_DATA_DIR)'],
] as const;

function withConnection(command: Command): Command {
  for (const [flags, description] of CONNECTION_HELP) command.option(flags, description);
  return command.option('--json', 'print the answer as JSON, for scripts', false);
}

const claimText = (claim: IssuerDomain): string =>
  record([
    ['domain', claim.domain],
    ['status', claim.status],
    ['publish', `${claim.record.name} ${claim.record.type} "${claim.record.value}"`],
    ['proven at', claim.provenAt === null ? '-' : new Date(claim.provenAt).toISOString()],
    ['checked at', claim.checkedAt === null ? '-' : new Date(claim.checkedAt).toISOString()],
    ['last check', claim.checkDetail ?? '-'],
  ]);

/**
 * `trustpoint domains`: the domains a customer proves to issue in the name of. Claiming one gives
 * the DNS TXT record to publish; once the service has checked it, the customer's new certificates
 * name the domain (`data.issuerDomain`), and every verifier looks the record up itself.
 */
export function domainsCommand(program: Command, io: Io): void {
  const domains = program
    .command('domains')
    .description(
      'the domains you issue in the name of: claim one, publish the DNS record it gives, have the service check it; your new certificates then name it, and verifiers check the record themselves',
    )
    .addHelpText(
      'after',
      `
Claiming and checking need the \`certify\` scope, listing \`read\`. Exit codes: 0 done (for check: proven), 3 the token refused or without the scope, 4 no such claim, 2 not a domain, 6 the service unreachable, 1 check: not proven (yet).

Example:
  trustpoint domains claim university.example     # prints _trustpoint.university.example TXT "trustpoint-issuer v=1 ..."
  trustpoint domains check university.example     # once the record is published`,
    );

  const client = async (options: DomainsOptions) => {
    const connection = await resolveConnection(options, io.env);
    return serviceClient({
      certUrl: `${connection.url.replace(/\/+$/, '')}/cert/v2`,
      token: connection.token,
      timeoutMs: connection.timeoutMs,
    }).cert;
  };
  const scopes = { 403: 'the key or token lacks the scope this needs: use one with it' };

  withConnection(
    domains
      .command('claim')
      .description('claim a domain: prints the TXT record to publish at _trustpoint.<domain>')
      .argument('<domain>', 'the domain, e.g. university.example (any case, Unicode)'),
  ).action(async (domain: string, options: DomainsOptions) => {
    const cert = await client(options);
    const claim = await cert
      .claimIssuerDomain(domain)
      .catch((error: unknown) => cliErrorOf(error, `domain ${domain}`, scopes));
    io.stdout(
      options.json
        ? `${JSON.stringify(claim, null, 2)}\n`
        : `${claimText(claim)}\nPublish the record, then: trustpoint domains check ${claim.domain}\n`,
    );
  });

  withConnection(
    domains.command('list').description('your claimed domains and their status'),
  ).action(async (options: DomainsOptions) => {
    const cert = await client(options);
    const claims = await cert
      .listIssuerDomains()
      .catch((error: unknown) => cliErrorOf(error, 'the domains', scopes));
    io.stdout(
      options.json
        ? `${JSON.stringify(claims, null, 2)}\n`
        : `${table(claims, [
            { title: 'domain', value: (claim) => claim.domain },
            { title: 'status', value: (claim) => claim.status },
            { title: 'record', value: (claim) => `${claim.record.name} TXT` },
            { title: 'last check', value: (claim) => claim.checkDetail ?? '-' },
          ])}\n`,
    );
  });

  withConnection(
    domains
      .command('check')
      .description('have the service look the record up now (exit 1 while it is not proven)')
      .argument('<domain>', 'a domain you claimed'),
  ).action(async (domain: string, options: DomainsOptions) => {
    const cert = await client(options);
    const checked = await cert
      .checkIssuerDomain(domain)
      .catch((error: unknown) => cliErrorOf(error, `domain ${domain}`, scopes));
    io.stdout(options.json ? `${JSON.stringify(checked, null, 2)}\n` : `${claimText(checked)}\n`);
    if (checked.status !== 'proven') {
      throw new CliError(
        `domain ${checked.domain} not proven: ${checked.check.detail}`,
        EXIT.failure,
      );
    }
  });

  withConnection(
    domains
      .command('release')
      .description('withdraw a claim: your later certificates no longer name the domain')
      .argument('<domain>', 'a domain you claimed'),
  ).action(async (domain: string, options: DomainsOptions) => {
    const cert = await client(options);
    await cert
      .releaseIssuerDomain(domain)
      .catch((error: unknown) => cliErrorOf(error, `domain ${domain}`, scopes));
    io.stdout(
      options.json ? `${JSON.stringify({ domain, released: true })}\n` : `Released ${domain}\n`,
    );
  });
}
