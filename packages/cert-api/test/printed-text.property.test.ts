// What a certificate's PDF prints for its text: every character the standard fonts lack as its
// code point, so that the printed form reads back to exactly one text.
import fc from 'fast-check';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { printedText } from '../src/certificates/printed-text.js';

/** The text a printed form stands for: each `<U+XXXX>` read back as its character. */
const readBack = (printed: string) =>
  printed.replace(/<U\+([0-9A-F]{4,6})>/g, (_, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  );

describe('printed text', () => {
  it('when any text is printed in full, then its printed form reads back to it, so two texts never print the same', async () => {
    // Arrange
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    const printable = new Set(font.getCharacterSet());
    const text = fc.string({
      unit: fc.oneof(
        fc.constantFrom('<', 'U', '+', '0', '4', '1', '8', '>', ' ', 'И', '\u00a0'),
        // Literal code point forms, whole and in part.
        fc.constantFrom('<U+0418>', '<U+003C>', 'U+0418>', '<U+1F600>'),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      ),
    });

    // Act / Assert
    fc.assert(
      fc.property(text, (given) => {
        const printed = printedText(given, printable, Number.MAX_SAFE_INTEGER);
        expect(printed.cut).toBe(false);
        expect(readBack(printed.text)).toBe(given);
        // Every code point printed is one the font prints as itself.
        expect(
          Array.from(printed.text, (char) => char.codePointAt(0) ?? 0).every(
            (codePoint) => codePoint === 0x0a || printable.has(codePoint),
          ),
        ).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('when a text is longer than the length printed, then what is printed stops there and says it is cut', () => {
    const printed = printedText('Иван Петров', new Set([0x20]), 20);

    expect(printed).toEqual({ text: '<U+0418><U+0432>', cut: true });
  });
});
