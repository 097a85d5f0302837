import { DomainError } from '@trustpoint/domain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { validate, validateRequest } from '../src/validate.js';

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
  it('when a path parameter holds U+0000, then the 400 names it path.<name>, whatever its schema', () => {
    // Arrange: a schema that would take any string; no stored text can hold U+0000.
    const params = { type: 'certID', id: 'a\u0000b' };

    // Act
    const error = thrownBy(() =>
      validate(z.object({ type: z.string(), id: z.string() }), params, 'path'),
    );

    // Assert
    expect(error).toMatchObject({
      code: 'validation',
      errors: [{ field: 'path.id', error: 'Must not contain the character U+0000 (NUL)' }],
    });
  });
});

describe('validateRequest', () => {
  const bodySchema = z.object({ name: z.string().min(1) });

  it('when every part is valid, then each is returned parsed under its name', () => {
    // Act
    const parsed = validateRequest({
      query: [querySchema, { networkId: '31337', limit: '10' }],
      body: [bodySchema, { name: 'x' }],
    });

    // Assert
    expect(parsed).toEqual({ query: { networkId: '31337', limit: 10 }, body: { name: 'x' } });
  });

  it('when the query and the body are both wrong, then one error lists the problems of both, then the further ones', () => {
    // Act
    const error = thrownBy(() =>
      validateRequest(
        { query: [querySchema, { limit: '500' }], body: [bodySchema, { name: '' }] },
        [{ field: 'body.expires', error: 'Must be later than now' }],
      ),
    );

    // Assert
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).errors?.map(({ field }) => field)).toEqual([
      'query.networkId',
      'query.limit',
      'body.name',
      'body.expires',
    ]);
  });

  it('when the body is missing, then it is named as such, with the query problems', () => {
    // Act
    const error = thrownBy(() =>
      validateRequest({ query: [querySchema, {}], body: [bodySchema, undefined] }),
    );

    // Assert
    expect((error as DomainError).errors).toEqual([
      { field: 'query.networkId', error: expect.any(String) as string },
      { field: 'query.limit', error: expect.any(String) as string },
      {
        field: 'body',
        error: 'A JSON body is required, sent with Content-Type: application/json',
      },
    ]);
  });
});
