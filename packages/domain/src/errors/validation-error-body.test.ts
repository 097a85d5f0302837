import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import { fileCertificateBodySchema } from '../requests/file-certificate-body.js';
import { fieldErrorsFromZod, ROOT_FIELD, validationErrorBody } from './validation-error-body.js';

describe('validationErrorBody', () => {
  it('when several fields are wrong, then the 400 body lists one entry per problem with dotted paths', () => {
    // Arrange
    const schema = z.strictObject({
      name: z.string(),
      items: z.array(z.object({ id: z.number() })),
    });
    const result = schema.safeParse({ items: [{ id: 'x' }], nmae: 'typo' });
    if (result.success) {
      throw new Error('expected a validation failure');
    }

    // Act
    const body = validationErrorBody(result.error);

    // Assert
    expect(body.statusCode).toBe(400);
    expect(body.type).toBe('Validation Error');
    expect(body.message).toBe('Request parameters are wrong, check requirements');
    expect(body.errors?.map((entry) => entry.field)).toEqual(['name', 'items.0.id', ROOT_FIELD]);
    expect(body.errors?.[2]?.error).toContain('nmae');
  });

  it('when a prefix is given, then every field starts with it', () => {
    const result = z.object({ limit: z.number() }).safeParse({});
    if (result.success) {
      throw new Error('expected a validation failure');
    }

    expect(fieldErrorsFromZod(result.error, 'query')).toEqual([
      { field: 'query.limit', error: expect.any(String) as string },
    ]);
  });

  it('when any input fails validation, then there is exactly one entry per zod issue', () => {
    // Near-miss bodies (known keys with arbitrary values) reach nested paths; anything() the root.
    const inputs = fc.oneof(
      fc.anything(),
      fc.record(
        {
          name: fc.anything(),
          description: fc.anything(),
          content: fc.anything(),
          expires: fc.anything(),
          extra: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(inputs, (input) => {
        const result = fileCertificateBodySchema.safeParse(input);
        if (result.success) {
          return;
        }

        const errors = validationErrorBody(result.error).errors ?? [];

        const issues = result.error.issues;
        expect(errors).toHaveLength(issues.length);
        errors.forEach((entry, index) => {
          const path = issues[index]?.path.map(String).join('.') ?? '';
          expect(entry.field).toBe(path === '' ? ROOT_FIELD : path);
          expect(entry.error).toBe(issues[index]?.message);
        });
      }),
    );
  });
});
