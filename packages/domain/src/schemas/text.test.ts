import { describe, expect, it } from 'vitest';

import { textProblem, textSchema } from './text.js';

describe('textSchema', () => {
  it('when text holds U+0000 or a lone surrogate, then it is refused with a reason', () => {
    for (const text of ['a\u0000b', '\ud800', 'end\udbff', '\udc00start']) {
      expect(textProblem(text)).toBeDefined();
      expect(textSchema().safeParse(text).success).toBe(false);
    }
  });

  it('when text is valid Unicode without U+0000, then it passes, astral characters included', () => {
    for (const text of ['', 'plain', '\u0001\u001f', '\ud83d\ude00 emoji', 'ñ 中文']) {
      expect(textProblem(text)).toBeUndefined();
      expect(textSchema().parse(text)).toBe(text);
    }
  });

  it('when limits are chained, then they still apply', () => {
    expect(textSchema().min(1).safeParse('').success).toBe(false);
  });
});
