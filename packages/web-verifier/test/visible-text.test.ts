import { describe, expect, it } from 'vitest';
import { visibleText } from '../src/page/dom.js';

describe('visibleText', () => {
  it('when a field holds bidirectional or invisible controls, then they are written out, and plain text, newlines and tabs are kept', () => {
    expect(visibleText('Diploma \u202eecila\u202c')).toBe('Diploma \\u202eecila\\u202c');
    expect(visibleText('a\u2066b\u2069c\u200fd\u061ce\ufefff\u200bg')).toBe(
      'a\\u2066b\\u2069c\\u200fd\\u061ce\\ufefff\\u200bg',
    );
    expect(visibleText('line one\nline two\tcol\r\n')).toBe('line one\nline two\tcol\\u000d\n');
    expect(visibleText('Ünïcödé, 日本語, emoji 😀')).toBe('Ünïcödé, 日本語, emoji 😀');
  });
});
