import type { Command } from 'commander';
import { usageError } from '../cli-error.js';
import { record, table, type Output } from '../output.js';
import type { AdminAction } from './admin-command.js';
import type { ApiKey } from './admin-types.js';

const keyFields = (key: ApiKey): [string, unknown][] => [
  ['id', key.id],
  ['name', key.name],
  ['prefix', key.prefix],
  ['created', `${key.createdAt} by ${key.createdBy ?? '-'}`],
  ['expires', key.expiresAt ?? 'never'],
  ['last used', key.lastUsedAt],
  ['revoked', key.revokedAt],
  ['scopes', key.scopes.join(' ')],
  ['parent key', key.parentKeyId],
];

const SCOPES = ['read', 'certify', 'track', 'keys', 'webhooks', 'admin'];

/** `--scopes read,certify` (or space-separated) as the list the service takes. */
function scopeList(value: string): string[] {
  const scopes = value.split(/[\s,]+/).filter((scope) => scope !== '');
  const unknown = scopes.filter((scope) => !SCOPES.includes(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw usageError(
      `--scopes takes some of ${SCOPES.join(', ')}${unknown.length > 0 ? `; not ${unknown.join(', ')}` : ''}`,
    );
  }
  return [...new Set(scopes)];
}

/** `--expires-at` as the ISO 8601 instant the service takes. */
function instant(value: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw usageError(`--expires-at is not a date: "${value}"`);
  return new Date(time).toISOString();
}

export function apiKeysCommands(admin: Command, action: AdminAction): void {
  const keys = admin
    .command('keys')
    .description("a user's API keys: for machine clients, shown once, revocable at once");

  keys
    .command('list')
    .description("a user's keys, revoked ones included")
    .argument('<userId>')
    .action(
      action<[string]>(async (client, [userId]) => {
        const { apiKeys } = await client.get<{ apiKeys: ApiKey[] }>(
          `/users/${encodeURIComponent(userId)}/api-keys`,
        );
        return {
          data: apiKeys,
          text: table(apiKeys, [
            { title: 'id', value: (key) => key.id },
            { title: 'name', value: (key) => key.name },
            { title: 'created', value: (key) => key.createdAt },
            { title: 'expires', value: (key) => key.expiresAt ?? 'never' },
            { title: 'scopes', value: (key) => key.scopes.join(' ') },
            { title: 'parent', value: (key) => key.parentKeyId },
            { title: 'last used', value: (key) => key.lastUsedAt },
            { title: 'revoked', value: (key) => key.revokedAt },
          ]),
        };
      }),
    );

  keys
    .command('create')
    .description('a new key for a user; the key is printed once, keep it then')
    .argument('<userId>')
    .requiredOption('--name <name>', 'what the key is for, e.g. "billing server"')
    .option('--expires-at <date>', 'when it stops working (ISO 8601); never by default')
    .option(
      '--scopes <scopes>',
      `what it may do, comma-separated: some of ${SCOPES.join(', ')}; all by default`,
    )
    .action(
      action<[string], { name: string; expiresAt?: string; scopes?: string }>(
        async (client, [userId], options): Promise<Output> => {
          const created = await client.post<ApiKey & { key: string }>(
            `/users/${encodeURIComponent(userId)}/api-keys`,
            {
              name: options.name,
              ...(options.expiresAt === undefined ? {} : { expiresAt: instant(options.expiresAt) }),
              ...(options.scopes === undefined ? {} : { scopes: scopeList(options.scopes) }),
            },
          );
          return {
            data: created,
            text: `${record(keyFields(created))}\nThe key (shown only now):\n${created.key}`,
          };
        },
      ),
    );

  keys
    .command('set-scopes')
    .description(
      'set what a key may do, from the next request on (the keys made with it are narrowed too)',
    )
    .argument('<userId>')
    .argument('<keyId>')
    .requiredOption(
      '--scopes <scopes>',
      `what it may do, comma-separated: some of ${SCOPES.join(', ')}`,
    )
    .action(
      action<[string, string], { scopes: string }>(async (client, [userId, keyId], options) => {
        const changed = await client.patch<ApiKey>(
          `/users/${encodeURIComponent(userId)}/api-keys/${encodeURIComponent(keyId)}`,
          { scopes: scopeList(options.scopes) },
        );
        return { data: changed, text: record(keyFields(changed)) };
      }),
    );

  keys
    .command('revoke')
    .description('stop a key from working, from the next request on')
    .argument('<userId>')
    .argument('<keyId>')
    .action(
      action<[string, string]>(async (client, [userId, keyId]) => {
        const revoked = await client.delete<ApiKey>(
          `/users/${encodeURIComponent(userId)}/api-keys/${encodeURIComponent(keyId)}`,
        );
        return { data: revoked, text: record(keyFields(revoked)) };
      }),
    );
}
