import { visit } from 'jsonc-parser';

/**
 * A JSON text naming one member twice in an object. `JSON.parse` keeps the last of the two and
 * other parsers the first: a copy `{"name": "Forged", "name": "Diploma"}` would verify here and
 * show "Forged" elsewhere, so a verifier refuses it (RFC 8259 §4: names SHOULD be unique; RFC 8785
 * canonical JSON, which the hashes use, has no form for it).
 */
export class DuplicateMemberError extends SyntaxError {
  override readonly name = 'DuplicateMemberError';

  constructor(
    /** Where, as a JSON path: `$.data.name`. */
    readonly path: string,
  ) {
    super(`${path} is given twice: a JSON object must name each member once`);
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

/**
 * The first member named twice in a JSON text (as a JSON path), if any. Names are compared as
 * decoded (`"a"` and `"\u0061"` are one name). Scanned with jsonc-parser, the scanner of VS Code's
 * JSON support, about 15 times faster here than building a syntax tree; the text's validity is
 * `JSON.parse`'s to decide.
 */
export function duplicateMember(text: string): string | undefined {
  const open: Set<string>[] = [];
  let found: string | undefined;
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
          if (names.has(name)) found = memberPath(pathOf(path()), name);
          names.add(name);
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
 * `JSON.parse`, refusing a text whose objects name a member twice (`DuplicateMemberError`), as
 * every verifier reads a certificate or an evidence: what it checks is what any reader shows.
 */
export function parseJsonStrict(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  const duplicate = duplicateMember(text);
  if (duplicate !== undefined) throw new DuplicateMemberError(duplicate);
  return value;
}
