export type ConstraintViolationKind = 'unique' | 'foreign-key' | 'check' | 'not-null';

export interface ConstraintViolation {
  kind: ConstraintViolationKind;
  /** Name of the violated constraint or index, e.g. `certificates_user_external_id_unique`. */
  constraint: string | undefined;
}

// SQLSTATE class 23 codes; `pg` and PGlite both expose them as `code` with the constraint name.
const kindsBySqlState: Readonly<Record<string, ConstraintViolationKind>> = {
  '23505': 'unique',
  '23503': 'foreign-key',
  '23514': 'check',
  '23502': 'not-null',
};

/** Tells a constraint violation apart from other database errors, identically on both backends. */
export function constraintViolation(error: unknown): ConstraintViolation | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const kind = typeof error.code === 'string' ? kindsBySqlState[error.code] : undefined;
  if (kind === undefined) return undefined;
  const constraint =
    'constraint' in error && typeof error.constraint === 'string' ? error.constraint : undefined;
  return { kind, constraint };
}
