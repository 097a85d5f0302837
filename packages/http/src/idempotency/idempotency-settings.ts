/** How `Idempotency-Key`s are kept: one setting per deployment, the same in every API process. */
export interface IdempotencySettings {
  /**
   * How long a key is kept from its first request (`IDEMPOTENCY_KEY_RETENTION_HOURS`): within it,
   * a retry is answered from the first request, and the key cannot serve another. Default 24 h.
   */
  retentionMs: number;
  /**
   * How long a running request holds its key without renewing it; it renews it every third of
   * this while it runs. A request whose process died loses its key this long after its last
   * renewal, and a retry then takes it over. Default 30 s.
   */
  leaseMs: number;
}

export const DEFAULT_IDEMPOTENCY_SETTINGS: IdempotencySettings = Object.freeze({
  retentionMs: 24 * 3_600_000,
  leaseMs: 30_000,
});
