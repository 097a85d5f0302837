import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import { integerParam } from './integer-param.js';

describe('integerParam', () => {
  const schema = integerParam(z.number().min(0));

  it.each([
    ['42', 42],
    [42, 42],
    ['0', 0],
  ])('when given %j, then it yields %i', (input, expected) => {
    expect(schema.parse(input)).toBe(expected);
  });

  it.each([[''], [' 1'], ['1e3'], ['0x10'], ['1.5'], [1.5], ['-1'], ['abc'], ['031337'], ['00']])(
    'when given %j, then it is rejected instead of guessed',
    (input) => {
      expect(schema.safeParse(input).success).toBe(false);
    },
  );
});
