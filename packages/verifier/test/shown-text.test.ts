import { describe, expect, it } from 'vitest';
import { shownText, shownTime } from '../src/index.js';

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

describe('shownTime', () => {
  it('when a time is one a date can name, then it is shown as its ISO date', () => {
    expect(shownTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(shownTime(8_640_000_000_000_000)).toBe('+275760-09-13T00:00:00.000Z');
    expect(shownTime(-1)).toBe('1969-12-31T23:59:59.999Z');
  });

  it.each([8_640_000_000_000_001, Number.MAX_SAFE_INTEGER, 1e300, 1.5, Number.NaN, Infinity])(
    'when a time is %s, which no date names, then it is shown as the number, said to be so, not thrown',
    (millis) => {
      expect(shownTime(millis)).toBe(`${String(millis)} ms since the epoch (no date)`);
    },
  );
});
