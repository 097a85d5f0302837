import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { DomainError } from './domain-error.js';
import { errorBodyFor } from './error-body-for.js';
import { errorBodySchema } from './error-body.js';
import { createErrorCatalogue } from './error-catalogue.js';
import { toErrorBody } from './to-error-body.js';

describe('toErrorBody', () => {
  it('when given a code, then the body has its status, type and message and no errors', () => {
    const body = toErrorBody('expiredToken');

    expect(body).toEqual({
      statusCode: 401,
      type: 'Authentication Error',
      message: 'Token is expired',
    });
    expect(errorBodySchema.safeParse(body).success).toBe(true);
  });

  it('when field errors are given for a 400, then they are included', () => {
    const errors = [{ field: 'name', error: 'Required' }];

    expect(toErrorBody('validation', { errors }).errors).toEqual(errors);
  });

  it('when field errors are given for another status, then they are dropped', () => {
    expect(toErrorBody('internal', { errors: [{ field: 'x', error: 'y' }] })).not.toHaveProperty(
      'errors',
    );
  });

  it('when a custom catalogue is given, then its messages are used', () => {
    const catalogue = createErrorCatalogue({ supportContact: 'help desk' });

    expect(toErrorBody('outOfCredits', { catalogue }).message).toContain('contact help desk to');
  });
});

describe('DomainError', () => {
  it('when thrown with a code and cause, then both are kept and the code maps to a body', () => {
    const cause = new Error('duplicate key');

    const error = new DomainError('externalIdAlreadyRegistered', {
      cause,
      detail: 'externalId=42',
    });

    expect(error).toBeInstanceOf(Error);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('externalId=42');
    expect(toErrorBody(error.code).statusCode).toBe(409);
  });
});

describe('errorBodyFor', () => {
  it('when a DomainError with field errors is thrown, then its code and errors are used', () => {
    const error = new DomainError('validation', { errors: [{ field: 'pin', error: 'Too short' }] });

    expect(errorBodyFor(error)).toEqual({
      statusCode: 400,
      type: 'Validation Error',
      message: 'Request parameters are wrong, check requirements',
      errors: [{ field: 'pin', error: 'Too short' }],
    });
  });

  it('when a ZodError is thrown, then it becomes a 400 with one entry per issue', () => {
    const result = z.object({ a: z.string(), b: z.number() }).safeParse({});

    expect(errorBodyFor(result.error).errors).toHaveLength(2);
  });

  it('when anything else is thrown, then it is masked as the generic 500', () => {
    const body = errorBodyFor(new Error('connection string postgres://secret'));

    expect(body).toEqual({
      statusCode: 500,
      type: 'Internal Server Error',
      message: 'Oops! Something went wrong, please try again later',
    });
  });
});
