/**
 * Seals the answers kept with `Idempotency-Key`s: an answer may carry a secret shown only once
 * (an API key, a webhook signing secret), and the database must never show one in clear. The
 * services pass the webhooks package's AES-256-GCM sealer under a key derived from
 * `TRUSTPOINT_PIN_KEY` (`deriveIdempotencyAnswerKey`), the same in every process.
 */
export interface AnswerSealer {
  seal(text: string): string;
  /** The text sealed in `sealed`; throws for anything this key did not seal. */
  open(sealed: string): string;
}

/**
 * What a sealed body starts with. A body kept in clear (by a version that did not seal) is JSON
 * and starts with `{`, so both are told apart and replayed.
 */
export const SEALED_ANSWER_PREFIX = 'sealed:';

export function sealAnswerBody(sealer: AnswerSealer, body: string): string {
  return `${SEALED_ANSWER_PREFIX}${sealer.seal(body)}`;
}

/** The body as it was sent; throws when it was sealed under another key. */
export function openAnswerBody(sealer: AnswerSealer, stored: string): string {
  return stored.startsWith(SEALED_ANSWER_PREFIX)
    ? sealer.open(stored.slice(SEALED_ANSWER_PREFIX.length))
    : stored;
}
