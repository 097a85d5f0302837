import { rgb, type PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';
import { PRINTED_VALUE_MAX_LENGTH, VALUE_CUT_NOTE, printedText } from './printed-text.js';

/** A4 portrait, in points. */
export const PAGE_SIZE: [number, number] = [595.28, 841.89];
export const MARGIN = 50;
const INK = rgb(0.1, 0.12, 0.14);
const MUTED = rgb(0.34, 0.38, 0.42);

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
}

/** What a font prints as itself, and how wide each character is (per 1 pt of size). */
interface FontMetrics {
  printable: ReadonlySet<number>;
  widths: Map<string, number>;
}

const metricsOfFont = new WeakMap<PDFFont, FontMetrics>();

function metricsOf(font: PDFFont): FontMetrics {
  let metrics = metricsOfFont.get(font);
  if (metrics === undefined) {
    metrics = { printable: new Set(font.getCharacterSet()), widths: new Map() };
    metricsOfFont.set(font, metrics);
  }
  return metrics;
}

/**
 * The width of printed text at 1 pt, summed character by character: `drawText` applies no
 * kerning, so neither does this (pdf-lib's `widthOfTextAtSize` does, and costs a glyph lookup of
 * the whole string each call).
 */
function widthOf(font: PDFFont, metrics: FontMetrics, text: string): number {
  let width = 0;
  for (const char of text) {
    let charWidth = metrics.widths.get(char);
    if (charWidth === undefined) {
      charWidth = font.widthOfTextAtSize(char, 1);
      metrics.widths.set(char, charWidth);
    }
    width += charWidth;
  }
  return width;
}

/** A word's pieces a line may break between: a code point form stays whole. */
const PIECES = /<U\+[0-9A-F]{4,6}>|[\s\S]/g;

/**
 * Printed text as lines that fit `width`: by words, by line breaks, and inside words too long for
 * a line (hashes). Each character is measured once, so it is linear in the text's length.
 */
function wrap(font: PDFFont, size: number, text: string, width: number): string[] {
  const metrics = metricsOf(font);
  const limit = width / size;
  const space = widthOf(font, metrics, ' ');
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    let started = false;
    for (const word of paragraph.split(' ')) {
      const wordWidth = widthOf(font, metrics, word);
      const candidate = started ? lineWidth + space + wordWidth : wordWidth;
      if (candidate <= limit) {
        line = started ? `${line} ${word}` : word;
        lineWidth = candidate;
        started = true;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      lineWidth = 0;
      started = true;
      for (const piece of word.match(PIECES) ?? []) {
        const pieceWidth = widthOf(font, metrics, piece);
        if (line !== '' && lineWidth + pieceWidth > limit) {
          lines.push(line);
          line = '';
          lineWidth = 0;
        }
        line += piece;
        lineWidth += pieceWidth;
      }
    }
    lines.push(line);
  }
  return text === '' ? [] : lines;
}

export interface TextOptions {
  font?: PDFFont;
  size?: number;
  width?: number;
  gap?: number;
  /** Printed characters at most; `PRINTED_VALUE_MAX_LENGTH` by default. */
  maxLength?: number;
  /** Whether a cut text ends with `VALUE_CUT_NOTE`; true by default. */
  cutNote?: boolean;
}

/** Writes top to bottom, opening a new page when one is full. */
export class Writer {
  private page: PDFPage;
  private y: number;

  constructor(
    private readonly document: PDFDocument,
    private readonly fonts: Fonts,
  ) {
    this.page = document.addPage(PAGE_SIZE);
    this.y = PAGE_SIZE[1] - MARGIN;
  }

  get currentPage(): PDFPage {
    return this.page;
  }

  get top(): number {
    return this.y;
  }

  private room(height: number): void {
    if (this.y - height < MARGIN) {
      this.page = this.document.addPage(PAGE_SIZE);
      this.y = PAGE_SIZE[1] - MARGIN;
    }
  }

  /** Writes `text` as the font prints it (`printedText`), cut at `maxLength`; returns what it printed. */
  text(text: string, options: TextOptions = {}): { length: number; cut: boolean } {
    const font = options.font ?? this.fonts.regular;
    const size = options.size ?? 10;
    const width = options.width ?? PAGE_SIZE[0] - 2 * MARGIN;
    const printed = printedText(
      text,
      metricsOf(font).printable,
      options.maxLength ?? PRINTED_VALUE_MAX_LENGTH,
    );
    const shown =
      printed.cut && options.cutNote !== false ? printed.text + VALUE_CUT_NOTE : printed.text;
    for (const line of wrap(font, size, shown, width)) {
      this.room(size * 1.35);
      this.y -= size * 1.35;
      this.page.drawText(line, { x: MARGIN, y: this.y, size, font, color: INK });
    }
    this.y -= options.gap ?? 0;
    return { length: printed.text.length, cut: printed.cut };
  }

  /** A label and its value on the lines below it, the value in a fixed-width font when code-like. */
  field(label: string, value: string, mono = false): void {
    this.room(30);
    this.text(label, { font: this.fonts.bold, size: 9 });
    this.text(value, { font: mono ? this.fonts.mono : this.fonts.regular, size: 9.5, gap: 5 });
  }

  rule(): void {
    this.room(12);
    this.y -= 6;
    this.page.drawLine({
      start: { x: MARGIN, y: this.y },
      end: { x: PAGE_SIZE[0] - MARGIN, y: this.y },
      thickness: 0.5,
      color: MUTED,
    });
    this.y -= 6;
  }

  skip(height: number): void {
    this.y -= height;
  }
}
