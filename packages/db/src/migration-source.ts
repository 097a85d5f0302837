import type { Knex } from 'knex';
import { accounts } from './migrations/0001-accounts.js';
import { anchoringQueue } from './migrations/0002-anchoring-queue.js';
import { certificates } from './migrations/0003-certificates.js';
import { assetTracking } from './migrations/0004-asset-tracking.js';
import { evidenceClock } from './migrations/0005-evidence-clock.js';
import { trustpointSignatures } from './migrations/0006-trustpoint-signatures.js';
import { certificateCounts } from './migrations/0007-certificate-counts.js';
import { pinFailures } from './migrations/0008-pin-failures.js';
import { anchorTransactions } from './migrations/0009-anchor-transactions.js';
import { unanchoredRecords } from './migrations/0010-unanchored-records.js';
import { webhooks } from './migrations/0011-webhooks.js';
import { paidAnchorRecords } from './migrations/0012-paid-anchor-records.js';
import { apiKeys } from './migrations/0013-api-keys.js';
import { administration } from './migrations/0014-administration.js';
import { sharedProcessState } from './migrations/0016-shared-process-state.js';
import { anchorRecordTimestamps } from './migrations/0017-anchor-record-timestamps.js';
import { webhookNumericNetworkIds } from './migrations/0018-webhook-numeric-network-ids.js';
import { tokenValidity } from './migrations/0019-token-validity.js';
import { revocationStatusRecords } from './migrations/0020-revocation-status-records.js';
import { idempotencyKeys } from './migrations/0021-idempotency-keys.js';
import { certificateHashVersion } from './migrations/0022-certificate-hash-version.js';
import { apiKeyScopes } from './migrations/0023-api-key-scopes.js';
import { assetHashVersion } from './migrations/0024-asset-hash-version.js';
import { creditLedgerSpends } from './migrations/0025-credit-ledger-spends.js';
import { issuerDomains } from './migrations/0026-issuer-domains.js';
import { cheaperDigestChecks } from './migrations/0027-cheaper-digest-checks.js';
import type { Migration } from './migrations/migration.js';

/** Every migration, oldest first. Listed here rather than globbed, so dist and vitest agree. */
export const migrations: readonly Migration[] = [
  accounts,
  anchoringQueue,
  certificates,
  assetTracking,
  evidenceClock,
  trustpointSignatures,
  certificateCounts,
  pinFailures,
  anchorTransactions,
  unanchoredRecords,
  webhooks,
  paidAnchorRecords,
  apiKeys,
  administration,
  sharedProcessState,
  anchorRecordTimestamps,
  webhookNumericNetworkIds,
  tokenValidity,
  revocationStatusRecords,
  idempotencyKeys,
  certificateHashVersion,
  apiKeyScopes,
  assetHashVersion,
  creditLedgerSpends,
  issuerDomains,
  cheaperDigestChecks,
];

/** The migrations of `list` as knex reads them (an upgrade test's "database as it was"). */
export function migrationSourceOf(list: readonly Migration[]): Knex.MigrationSource<Migration> {
  return {
    getMigrations: () => Promise.resolve([...list]),
    getMigrationName: (migration) => migration.name,
    getMigration: (migration) => Promise.resolve(migration),
  };
}

export const migrationSource = migrationSourceOf(migrations);
