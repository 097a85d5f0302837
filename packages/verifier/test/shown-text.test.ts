import { describe, expect, it } from 'vitest';
import { shownText } from '../src/index.js';

describe('shownText', () => {
  it('writes out what would reorder, hide or redraw text, and keeps the rest as it is', () => {
    expect(shownText('Diploma \u202eecila\u202c')).toBe('Diploma \\u202eecila\\u202c');
    expect(shownText('exam\u200bple.org')).toBe('exam\\u200bple.org');
    expect(shownText('a\u001b[2K\rb\u009bc\u00add')).toBe('a\\u001b[2K\\u000db\\u009bc\\u00add');
    expect(shownText('a\u2066b\u2069c\u200fd\u061ce\ufefff\u3164g')).toBe(
      'a\\u2066b\\u2069c\\u200fd\\u061ce\\ufefff\\u3164g',
    );
  });

  it('writes out tag characters and variation selectors beyond the BMP as their UTF-16 escapes', () => {
    // "hi" in tag characters after a visible name: invisible in most renderers.
    expect(shownText('Alice\u{e0068}\u{e0069}')).toBe('Alice\\udb40\\udc68\\udb40\\udc69');
    expect(shownText('x\u{e0100}y')).toBe('x\\udb40\\udd00y');
  });

  it('keeps JSON JSON: the escapes read back as the characters they stand for', () => {
    const json = JSON.stringify({ issuer: 'Alice\u202e\u{e0068}\u200b' });
    expect(JSON.parse(shownText(json))).toEqual({ issuer: 'Alice\u202e\u{e0068}\u200b' });
  });

  it('leaves tabs, newlines and every visible character alone', () => {
    expect(shownText('line one\nline two\tcol')).toBe('line one\nline two\tcol');
    expect(shownText('Ünïcödé, 日本語, emoji 😀, ℌ𝔢𝔩𝔩𝔬')).toBe('Ünïcödé, 日本語, emoji 😀, ℌ𝔢𝔩𝔩𝔬');
  });
});
