/**
 * How a certificate's text is printed with fonts that lack most of Unicode (the PDF's standard
 * fonts encode WinAnsi only): every character they cannot print as itself is printed as its code
 * point, `<U+0418>` for `И`, so two different texts never print the same. A `<` that would start
 * such a form in the text itself is printed as `<U+003C>`, and so is read back unambiguously. A line
 * break stays one (the writer starts a new line there).
 */

/**
 * The most characters of one value printed (a name, a description, one content value), a code
 * point form such as `<U+0418>` counting its length: the longest description allowed fits in
 * Latin letters. What is cut says so, and the certificate the QR code opens holds it whole.
 */
export const PRINTED_VALUE_MAX_LENGTH = 4_096;

/** Said where a value stops before its end. */
export const VALUE_CUT_NOTE = ' [cut here: the rest is in the certificate the QR code opens]';

/**
 * The certified content printed at most: this many `path: value` lines, and this many printed
 * characters in all. Content may be up to 1 MiB of JSON; paper shows its start, says where it is
 * cut, and one PDF costs milliseconds whatever the certificate holds.
 */
export const PRINTED_CONTENT_MAX_LINES = 200;
export const PRINTED_CONTENT_MAX_LENGTH = 8_192;

/** Said after certified content that is cut. */
export const CONTENT_CUT_NOTE =
  '[The certified content is cut here: the rest is in the certificate the QR code opens.]';

/** Printable in WinAnsi, but printed as something else would be: a space, or nothing. */
const LOOKALIKES = new Set([0xa0 /* no-break space */, 0xad /* soft hyphen */]);

/** What follows a `<` in the text when `<` must be escaped: the rest of a code point form. */
const CODE_POINT_FORM_REST = /^U\+[0-9A-F]{4,6}>/;

export function codePointForm(codePoint: number): string {
  return `<U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}>`;
}

export interface PrintedText {
  text: string;
  /** Whether `text` stops before the end of what was given (at `maxLength`). */
  cut: boolean;
}

/**
 * `text` as it is printed with a font that encodes `printable`, at most `maxLength` printed
 * characters long (a code point form counts its length). Linear in what is printed: a long text
 * costs no more than its first `maxLength` characters.
 */
export function printedText(
  text: string,
  printable: ReadonlySet<number>,
  maxLength: number,
): PrintedText {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const codePoint = text.codePointAt(index) ?? 0;
    const char = String.fromCodePoint(codePoint);
    const escaped =
      codePoint === 0x0a
        ? false
        : codePoint === 0x3c
          ? CODE_POINT_FORM_REST.test(text.slice(index + 1, index + 10))
          : !printable.has(codePoint) || LOOKALIKES.has(codePoint);
    const printed = escaped ? codePointForm(codePoint) : char;
    if (out.length + printed.length > maxLength) return { text: out, cut: true };
    out += printed;
    index += char.length;
  }
  return { text: out, cut: false };
}
