import { DomainError } from '@trustpoint/domain';

/** A 400 on one field of the request, saying why. */
export function refused(field: string, error: string): DomainError {
  return new DomainError('validation', { detail: error, errors: [{ field, error }] });
}

/** The 404 for a user id that names no user, saying which (`admin credits grant ghost 5`). */
export function noSuchUser(id: string): DomainError {
  return new DomainError('notFound', {
    detail: `no user ${id}`,
    hint: { field: 'id', error: `There is no user ${JSON.stringify(id)}` },
  });
}
