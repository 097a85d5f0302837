import type { Command } from 'commander';
import { usageError } from '../cli-error.js';
import { record, table, type Output } from '../output.js';
import type { AdminSchemas } from './admin-client.js';
import type { AdminAction } from './admin-action.js';

type ApiKey = AdminSchemas['ApiKey'];
type ApiScope = AdminSchemas['ApiScope'];

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

const SCOPES: readonly ApiScope[] = ['read', 'certify', 'track', 'keys', 'webhooks', 'admin'];
const isScope = (scope: string): scope is ApiScope => (SCOPES as readonly string[]).includes(scope);

/** `--scopes read,certify` (or space-separated) as the list the service takes. */
function scopeList(value: string): ApiScope[] {
  const given = value.split(/[\s,]+/).filter((scope) => scope !== '');
  const scopes = given.filter(isScope);
  const unknown = given.filter((scope) => !isScope(scope));
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
        const { apiKeys } = await client.answer(
          client.api.GET('/users/{id}/api-keys', { params: { path: { id: userId } } }),
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
          const created = await client.answer(
            client.api.POST('/users/{id}/api-keys', {
              params: { path: { id: userId } },
              body: {
                name: options.name,
                ...(options.expiresAt === undefined
                  ? {}
                  : { expiresAt: instant(options.expiresAt) }),
                ...(options.scopes === undefined ? {} : { scopes: scopeList(options.scopes) }),
              },
            }),
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
        const changed = await client.answer(
          client.api.PATCH('/users/{id}/api-keys/{keyId}', {
            params: { path: { id: userId, keyId } },
            body: { scopes: scopeList(options.scopes) },
          }),
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
        const revoked = await client.answer(
          client.api.DELETE('/users/{id}/api-keys/{keyId}', {
            params: { path: { id: userId, keyId } },
          }),
        );
        return { data: revoked, text: record(keyFields(revoked)) };
      }),
    );
}
