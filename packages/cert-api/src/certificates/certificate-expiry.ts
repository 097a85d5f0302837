import { DomainError, epochMillisSchema, type FieldError } from '@trustpoint/domain';

/** What an `expires` not later than the creation is told. */
export const EXPIRES_PROBLEM = 'Must be later than now, in milliseconds since the epoch';

/**
 * The problem of an `expires` (as sent) that is not later than `issuedOn`: such a certificate
 * would be expired from its first moment, and would spend a credit for nothing. A time in seconds
 * (1795000000) reads as milliseconds in January 1970, so it is caught here too. Undefined when
 * there is none, or when `expires` is not a time at all (the body's schema reports that).
 */
export function expiresProblem(expires: unknown, issuedOn: number): FieldError | undefined {
  const parsed = epochMillisSchema.safeParse(expires);
  return parsed.success && parsed.data <= issuedOn
    ? { field: 'body.expires', error: EXPIRES_PROBLEM }
    : undefined;
}

/** Refuses (400 on `body.expires`) a certificate that would be expired when it is issued. */
export function requireExpiresAfter(expires: number | null, issuedOn: number): void {
  const problem = expiresProblem(expires, issuedOn);
  if (problem !== undefined) {
    throw new DomainError('validation', {
      detail: 'expires not after issuedOn',
      errors: [problem],
    });
  }
}
