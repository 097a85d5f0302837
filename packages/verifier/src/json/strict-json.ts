import { visit } from 'jsonc-parser';

/**
 * A JSON text that readers read differently: a member named twice, or a number written with
 * more than the value it holds. A verifier refuses it: what it checks must be what any reader shows.
 */
export class AmbiguousJsonError extends SyntaxError {
  override readonly name: string = 'AmbiguousJsonError';

  constructor(
    /** Where, as a JSON path: `$.data.name`. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A JSON text naming one member twice in an object. `JSON.parse` keeps the last of the two and
 * other parsers the first: a copy `{"name": "Forged", "name": "Diploma"}` would verify here and
 * show "Forged" elsewhere, so a verifier refuses it (RFC 8259 §4: names SHOULD be unique; RFC 8785
 * canonical JSON, which the hashes use, has no form for it).
 */
export class DuplicateMemberError extends AmbiguousJsonError {
  override readonly name = 'DuplicateMemberError';

  constructor(path: string) {
    super(path, `${path} is given twice: a JSON object must name each member once`);
  }
}

/**
 * A number written with digits its value does not hold: `9.0000000000000001` is read as 9 by
 * `JSON.parse` (and hashed as 9) but as itself by a decimal reader (Python's `Decimal`, Java's
 * `BigDecimal`), so a copy would verify here and show another number elsewhere. Every number must
 * be written as the value a double holds, in any form (`1.0`, `1e2` and `100.00` are fine).
 */
export class InexactNumberError extends AmbiguousJsonError {
  override readonly name = 'InexactNumberError';

  constructor(
    path: string,
    /** The number as written. */
    readonly written: string,
    /** What it is read as. */
    readonly reads: string,
  ) {
    super(
      path,
      `${path} is written ${written}, which reads as ${reads}: a number must be written as the value it holds`,
    );
  }
}

const memberPath = (path: string, name: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;

const pathOf = (segments: readonly (string | number)[]): string =>
  segments.reduce<string>(
    (path, segment) =>
      typeof segment === 'number' ? `${path}[${String(segment)}]` : memberPath(path, segment),
    '$',
  );

/** A number's decimal value in one form (`<sign><digits>e<exponent>`, no zeros at either end). */
function decimalValue(text: string): string | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let power = Number(exponent) - fraction.length;
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  power += trailing;
  return `${sign}${digits}e${String(power)}`;
}

/**
 * What a number written `text` reads as, when that is not the value written (`undefined` when it
 * is): the shortest text of the double `JSON.parse` makes of it, which any form of the same value
 * matches. Zero's sign is not a difference (`-0` reads as 0 in every verifier).
 */
function inexactReading(text: string): string | undefined {
  const value = Number(text);
  const reads = Object.is(value, -0) ? '0' : String(value);
  if (!Number.isFinite(value)) return reads;
  const written = decimalValue(text);
  return written === decimalValue(reads) ? undefined : reads;
}

export type JsonAmbiguity =
  | { kind: 'duplicateMember'; path: string }
  | { kind: 'inexactNumber'; path: string; written: string; reads: string };

/**
 * The first place readers would read a JSON text differently (as a JSON path), if any: a member
 * named twice in an object (names compared as decoded: `"a"` and `"\u0061"` are one name), or a
 * number written with more than its value (`InexactNumberError`). Scanned with jsonc-parser, the
 * scanner of VS Code's JSON support, about 15 times faster here than building a syntax tree; the
 * text's validity is `JSON.parse`'s to decide.
 */
export function jsonAmbiguity(
  text: string,
  options: { numbers?: boolean } = {},
): JsonAmbiguity | undefined {
  const open: Set<string>[] = [];
  let found: JsonAmbiguity | undefined;
  const numbers = options.numbers ?? true;
  try {
    visit(
      text,
      {
        onObjectBegin: () => {
          open.push(new Set());
        },
        onObjectEnd: () => {
          open.pop();
        },
        onObjectProperty: (name, _offset, _length, _line, _column, path) => {
          const names = open[open.length - 1];
          if (names === undefined || found !== undefined) return;
          if (names.has(name)) {
            found = { kind: 'duplicateMember', path: memberPath(pathOf(path()), name) };
          }
          names.add(name);
        },
        onLiteralValue: (value, offset, length, _line, _column, path) => {
          if (!numbers || found !== undefined || typeof value !== 'number') return;
          const written = text.slice(offset, offset + length);
          const reads = inexactReading(written);
          if (reads !== undefined) {
            found = { kind: 'inexactNumber', path: pathOf(path()), written, reads };
          }
        },
      },
      { disallowComments: true, allowTrailingComma: false },
    );
  } catch (error) {
    // The scanner descends by recursion: a text nested deeper than the stack is not read.
    if (error instanceof RangeError) throw new SyntaxError('The JSON is nested too deeply to read');
    throw error;
  }
  return found;
}

/**
 * The first member named twice in a JSON text (as a JSON path), if any; numbers are not looked at
 * (`jsonAmbiguity` does both).
 */
export function duplicateMember(text: string): string | undefined {
  return jsonAmbiguity(text, { numbers: false })?.path;
}

/**
 * `JSON.parse`, refusing a text that readers would read differently (`AmbiguousJsonError`: a
 * member named twice, `DuplicateMemberError`; a number written with more than its value,
 * `InexactNumberError`), as every verifier reads a certificate or an evidence: what it checks is
 * what any reader shows.
 */
export function parseJsonStrict(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  const ambiguity = jsonAmbiguity(text);
  if (ambiguity?.kind === 'duplicateMember') throw new DuplicateMemberError(ambiguity.path);
  if (ambiguity?.kind === 'inexactNumber') {
    throw new InexactNumberError(ambiguity.path, ambiguity.written, ambiguity.reads);
  }
  return value;
}
