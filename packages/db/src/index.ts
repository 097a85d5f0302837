export { constraintViolation } from './constraint-violation.js';
export type { ConstraintViolation, ConstraintViolationKind } from './constraint-violation.js';
export { isTransientConflict, retryTransientConflicts } from './transient-conflict.js';
export { batchedLookup, Batcher, onePer } from './batcher.js';
export { ShortOfCredit } from './short-of-credit.js';
export { writeAlongside, writeTogether } from './write-together.js';
export type { Write } from './write-together.js';
export type { BatcherOptions, ItemOutcome } from './batcher.js';
export { createDatabase } from './create-database.js';
export type { DatabaseOptions } from './create-database.js';
export type { Database, DatabaseBackend } from './database.js';
export { openPglite } from './open-pglite.js';
export {
  maintainTables,
  maintenanceDue,
  startEmbeddedMaintenance,
} from './embedded-maintenance.js';
export type {
  EmbeddedMaintenance,
  EmbeddedMaintenanceOptions,
  TableMaintenance,
} from './embedded-maintenance.js';
export type { PgliteDatabase, PgliteOptions } from './open-pglite.js';
export {
  appliedMigrations,
  migrate,
  MIGRATION_LOCK_KEY,
  newerMigrations,
  pendingMigrations,
  rollbackAll,
} from './migrate.js';
export { connectionPoolStats, pingDatabase } from './database-health.js';
export type { ConnectionPoolStats } from './database-health.js';
export { migrations } from './migration-source.js';
export type { Migration } from './migrations/migration.js';
export { parseInt8 } from './parse-int8.js';
export type { Queryable } from './queryable.js';
export { RECORD_KINDS } from './repositories/anchor-record.js';
export type {
  AnchorRequest,
  AnchorStatus,
  QueuedRecord,
  RecordKind,
  RefusedRecord,
} from './repositories/anchor-record.js';
export {
  cancelQueuedAnchorRecord,
  enqueueAnchorRecord,
  enqueueAnchorRecords,
  enqueueAnchorRecordsOnce,
  findAnchorRecordNetworks,
  readAnchorRecordStates,
} from './repositories/anchor-queue-repository.js';
export type { AnchorRecordState } from './repositories/anchor-queue-repository.js';
export {
  abandonAnchorBatch,
  claimAnchorBatch,
  findSignerNextNonce,
  listPendingBatches,
  markTransactionPendingSince,
  readSendingState,
  settleAnchorBatch,
  storeReplacementTransaction,
} from './repositories/anchor-batches-repository.js';
export type {
  BatchTransaction,
  ClaimedBatch,
  ClaimOptions,
  PendingBatch,
  QueuedBacklog,
  ReplacementTransaction,
  SendingState,
  SettledBatch,
  SettledRecords,
  SignedBatch,
} from './repositories/anchor-batches-repository.js';
export {
  countPendingAnchorRecords,
  readAnchorQueueDepth,
} from './repositories/anchor-queue-depth-repository.js';
export type { AnchorQueueDepth } from './repositories/anchor-queue-depth-repository.js';
export {
  readNetworkHealth,
  recordNetworkHealth,
} from './repositories/network-health-repository.js';
export type { RecordedNetworkHealth } from './repositories/network-health-repository.js';
export { countPendingWebhookDeliveries } from './repositories/webhook-deliveries-repository.js';
export {
  ACKNOWLEDGED_RECORD_STATUSES,
  listAcknowledgedRecords,
  MAX_RECORDS_PAGE,
} from './repositories/anchor-records-repository.js';
export type {
  AcknowledgedRecord,
  AcknowledgedRecordsFilter,
  AcknowledgedRecordStatus,
} from './repositories/anchor-records-repository.js';
export {
  findAsset,
  findAssetsByIds,
  findAssetsByTrackIds,
  hasAssetId,
  holdAssetShares,
  insertAsset,
  listAssets,
  shareAsset,
  unshareAsset,
  withdrawAsset,
} from './repositories/assets-repository.js';
export type { AssetListFilter, AssetRecord, NewAsset } from './repositories/assets-repository.js';
export {
  DEFAULT_EVIDENCE_MAX_AHEAD_SECONDS,
  EvidenceClockAheadError,
  evidenceClockRetryAfter,
  findEvidence,
  findEvidencesByHash,
  insertEvidence,
  insertEvidences,
  insertEvidencesWithWrites,
  loadEvidences,
  nextEvidenceTimestamp,
  nextEvidenceTimestamps,
  withdrawEvidence,
  type EvidenceWithWrites,
  type EvidenceWithWritesOutcome,
} from './repositories/evidences-repository.js';
export type { EvidenceRecord, NewEvidence } from './repositories/evidences-repository.js';
export {
  addTrustpoint,
  findCertificate,
  findCertificateRepeats,
  insertCertificate,
  insertCertificatesWithWrites,
  listCertificates,
  lockCertificate,
  markCertificateRevoked,
  reanchorCertificate,
  setTrustpointAnchorRecord,
  unanchoredTrustpoint,
  updateCertificateAccess,
} from './repositories/certificates-repository.js';
export type {
  CertificateAccessChanges,
  CertificateConflict,
  CertificateHashV2,
  CertificateHashVersion,
  CertificatesWithWritesInsertion,
  CertificateWithWrites,
  CertificateListFilter,
  CertificateLookup,
  CertificateRecord,
  NewCertificate,
  NewTrustpoint,
  SelectiveDisclosureRecord,
  TrustpointRecord,
  TrustpointTypeCode,
} from './repositories/certificates-repository.js';
export {
  findCreditBalance,
  findCreditBalances,
  grantCredits,
  lockCreditBalances,
  spendCredit,
  spendCredits,
  creditsSpending,
} from './repositories/credits-repository.js';
export {
  createPlan,
  findPlan,
  isNetworkInPlan,
  listPlans,
  lockPlan,
  savePlan,
} from './repositories/plans-repository.js';
export type { Plan } from './repositories/plans-repository.js';
export {
  batchedUserLookup,
  createUser,
  findUser,
  findAnyAdministrator,
  findUserAccount,
  findUsers,
  listUserAccounts,
  lockUser,
  setUserDisabled,
  updateUser,
  USER_ROLES,
} from './repositories/users-repository.js';
export type {
  NewUser,
  User,
  UserAccount,
  UserAccountListFilter,
  UserChanges,
  UserRole,
} from './repositories/users-repository.js';
export { SERVICE_CHANGE } from './repositories/change-context.js';
export type { ChangeContext } from './repositories/change-context.js';
export { CreditBalanceOverflowError } from './repositories/credit-balance-overflow-error.js';
export {
  changeCredits,
  CREDIT_MOVEMENT_KINDS,
  CREDIT_SPENDING_ACTIONS,
  recordCreditMovements,
} from './repositories/credit-movements-repository.js';
export type {
  CreditChange,
  CreditMovement,
  CreditMovementKind,
  CreditSpendingAction,
  CreditSpendPurpose,
  NewCreditMovement,
  StoredCreditMovementKind,
} from './repositories/credit-movements-repository.js';
export { listCreditMovements } from './repositories/credit-ledger.js';
export type { CreditMovementListFilter } from './repositories/credit-ledger.js';
export { refundPaidRecords } from './repositories/credit-refunds.js';
export {
  auditEntriesInsert,
  listAuditEntries,
  recordAudit,
} from './repositories/audit-repository.js';
export type { AuditEntry, AuditFilter, NewAuditEntry } from './repositories/audit-repository.js';
export {
  prunePinFailures,
  releasePinAttempt,
  reservePinAttempt,
} from './repositories/pin-failures-repository.js';
export type {
  HeldPinAttempt,
  PinAttemptReservation,
  PinFailureBudget,
  PinFailureScope,
} from './repositories/pin-failures-repository.js';
export { withdrawCertificate } from './repositories/withdraw-certificate.js';
export {
  claimIssuerDomain,
  IssuerDomainLimitError,
  findIssuerDomain,
  listIssuerDomains,
  recordIssuerDomainCheck,
  releaseIssuerDomain,
  type IssuerDomainRecord,
} from './repositories/issuer-domains-repository.js';
export {
  advanceStatusBackfill,
  evidenceNetworksOf,
  findStatusBackfill,
  revokedCertificatesOn,
} from './repositories/revocation-status-repository.js';
export type {
  RevokedCertificate,
  StatusBackfill,
} from './repositories/revocation-status-repository.js';
export { withAnchoringStates } from './repositories/anchoring-status.js';
export {
  findPublishedFile,
  insertPublishedFile,
  lockPublishedFileHash,
  unpublishUncertifiedFile,
} from './repositories/published-files-repository.js';
export type { NewPublishedFile, PublishedFile } from './repositories/published-files-repository.js';
export {
  listRegistriesInUse,
  type RegistryInUse,
} from './repositories/registries-in-use-repository.js';
export {
  claimIdempotencyKey,
  claimNewIdempotencyKeys,
  commitIdempotencyKey,
  commitIdempotencyKeys,
  completeIdempotencyKey,
  completeIdempotencyKeys,
  holdsIdempotencyKey,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  renewIdempotencyLease,
  restartIdempotencyKey,
} from './repositories/idempotency-keys-repository.js';
export type {
  IdempotencyClaim,
  IdempotencyKeyClaim,
  IdempotentRequest,
  StoredResponse,
} from './repositories/idempotency-keys-repository.js';
export { readDatabaseClock } from './database-clock.js';
export { WEBHOOK_EVENT_TYPES } from './repositories/webhook-event-types.js';
export type { WebhookEventType } from './repositories/webhook-event-types.js';
export {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  findWebhookEndpointWithSecret,
  insertWebhookEndpointWithin,
  listWebhookAttempts,
  listWebhookEndpoints,
  scheduleWebhookRedelivery,
} from './repositories/webhook-endpoints-repository.js';
export type {
  NewWebhookEndpoint,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
} from './repositories/webhook-endpoints-repository.js';
export {
  claimDueWebhookDeliveries,
  recordWebhookDeliveryAttempt,
} from './repositories/webhook-deliveries-repository.js';
export type {
  ClaimedWebhookDelivery,
  WebhookAttemptRecord,
  WebhookClaimOptions,
} from './repositories/webhook-deliveries-repository.js';
export {
  countActiveApiKeys,
  findApiKeyByDigest,
  findApiKeyById,
  findUserApiKey,
  insertApiKey,
  listActiveDescendantKeys,
  listUserApiKeys,
  lockApiKeyTree,
  lockUserApiKeys,
  recordApiKeyUse,
  revokeApiKeyTree,
  setApiKeyScopes,
} from './repositories/api-keys-repository.js';
export type { ApiKeyRecord, NewApiKeyRecord } from './repositories/api-keys-repository.js';
export {
  countRateLimitHits,
  deleteRateLimitKey,
  deleteRateLimitWindowsBefore,
  findRateLimitHits,
  uncountRateLimitHit,
} from './repositories/rate-limit-counts-repository.js';
export type { RateLimitHits } from './repositories/rate-limit-counts-repository.js';
export { takeBootstrapLock } from './repositories/bootstrap-lock.js';
export {
  anchoringAnnouncer,
  listenForAnchoring,
  notifyAnchoring,
} from './anchoring-notifications.js';
export type {
  AnchoringAnnouncer,
  AnchoringEvent,
  AnchoringNotificationHandlers,
  AnchoringNotificationOptions,
  AnchoringNotifications,
} from './anchoring-notifications.js';
