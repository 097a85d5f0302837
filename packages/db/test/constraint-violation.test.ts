import { describe, expect, it } from 'vitest';
import { constraintViolation } from '../src/index.js';

describe('constraintViolation', () => {
  it('when the error carries a unique-violation SQLSTATE, then it names the constraint', () => {
    // Arrange
    const error = Object.assign(new Error('duplicate key'), {
      code: '23505',
      constraint: 'certificates_user_hash_unique',
    });

    // Act
    const violation = constraintViolation(error);

    // Assert
    expect(violation).toEqual({ kind: 'unique', constraint: 'certificates_user_hash_unique' });
  });

  it('when the error is not a constraint violation, then it returns undefined', () => {
    // Arrange
    const errors: unknown[] = [new Error('boom'), { code: '40001' }, 'text', null];

    // Act
    const violations = errors.map(constraintViolation);

    // Assert
    expect(violations).toEqual([undefined, undefined, undefined, undefined]);
  });
});
