import { describe, expect, it } from 'vitest';

import { certificateListQuerySchema } from './certificate-list-query.js';

describe('certificateListQuerySchema', () => {
  it('when the query is empty, then paging defaults apply', () => {
    expect(certificateListQuerySchema.parse({})).toEqual({ offset: 0, limit: 20, order: 'desc' });
  });

  it('when values arrive as query-string text, then numbers are converted', () => {
    // Arrange
    const query = {
      access: 'public',
      type: 'content',
      from: '1767225600000',
      to: '1767312000000',
      offset: '40',
      limit: '100',
      order: 'asc',
      fields: 'certID, data.name,access',
    };

    // Act
    const parsed = certificateListQuerySchema.parse(query);

    // Assert
    expect(parsed).toEqual({
      access: 'public',
      type: 'content',
      from: 1767225600000,
      to: 1767312000000,
      offset: 40,
      limit: 100,
      order: 'asc',
      fields: ['certID', 'data.name', 'access'],
    });
  });

  it.each([
    ['a limit above 100', { limit: '101' }, 'limit'],
    ['a zero limit', { limit: '0' }, 'limit'],
    ['a negative offset', { offset: '-1' }, 'offset'],
    ['an empty offset', { offset: '' }, 'offset'],
    ['an unknown order', { order: 'newest' }, 'order'],
    ['an unknown access', { access: 'shared' }, 'access'],
    ['an unknown field', { fields: 'certID,nmae' }, 'fields'],
    ['to before from', { from: '10', to: '9' }, 'to'],
  ])('when the query has %s, then that parameter is reported', (_, query, field) => {
    const result = certificateListQuerySchema.safeParse(query);

    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });

  it('when a parameter name is misspelt, then it is reported', () => {
    const result = certificateListQuerySchema.safeParse({ limt: '5' });

    expect(result.error?.issues[0]?.message).toContain('limt');
  });

  it('when a field is repeated, then it is listed once', () => {
    expect(certificateListQuerySchema.parse({ fields: 'data,data' }).fields).toEqual(['data']);
  });
});
