import { DomainError } from '@trustpoint/domain';
import type { Request } from 'express';

/** The request header (IETF httpapi draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The longest key accepted, in characters (Stripe's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Visible ASCII and spaces: what a header value can carry unchanged through every proxy. */
const PRINTABLE = /^[\x20-\x7e]+$/;

function refused(error: string): DomainError {
  return new DomainError('validation', {
    detail: `bad ${IDEMPOTENCY_KEY_HEADER} header`,
    errors: [{ field: `header.${IDEMPOTENCY_KEY_HEADER}`, error }],
  });
}

/**
 * The request's key, or undefined without the header. The draft makes the value a Structured Field
 * string (`"8e03978e-..."`); a bare value, as Stripe takes it, is the same key. A value that is
 * empty, longer than `MAX_IDEMPOTENCY_KEY_LENGTH`, not printable ASCII, or given twice is a 400.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headersDistinct[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (raw === undefined) return undefined;
  if (raw.length !== 1) return failWith('Must be sent once');
  const quoted = /^"(.*)"$/.exec(raw[0] ?? '');
  const key = (quoted === null ? (raw[0] ?? '') : (quoted[1] ?? '')).trim();
  if (key === '') return failWith('Must not be empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return failWith(`Must be at most ${String(MAX_IDEMPOTENCY_KEY_LENGTH)} characters`);
  }
  if (!PRINTABLE.test(key)) return failWith('Must be printable ASCII characters');
  if (quoted !== null && /["\\]/.test(key)) return failWith('Must not hold quotes or backslashes');
  return key;
}

function failWith(error: string): never {
  throw refused(error);
}
