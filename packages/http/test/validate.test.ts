import { DomainError } from '@trustpoint/domain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { validate } from '../src/validate.js';

const querySchema = z.object({ networkId: z.string(), limit: z.coerce.number().int().max(100) });

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('validate', () => {
  it('when the value is valid, then the parsed value is returned', () => {
    // Arrange
    const query = { networkId: '31337', limit: '10' };

    // Act
    const parsed = validate(querySchema, query);

    // Assert
    expect(parsed).toEqual({ networkId: '31337', limit: 10 });
  });

  it('when the value is invalid, then a validation DomainError lists every problem under the prefix', () => {
    // Arrange
    const query = { limit: '500' };

    // Act
    const error = thrownBy(() => validate(querySchema, query, 'query'));

    // Assert
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'validation',
      errors: [
        { field: 'query.networkId', error: expect.any(String) as string },
        { field: 'query.limit', error: expect.any(String) as string },
      ],
    });
  });
});
