import { parse, type ValueNode } from '@humanwhocodes/momoa';

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

/**
 * `JSON.parse`, refusing a text whose objects name a member twice (`DuplicateMemberError`), as
 * every verifier reads a certificate or an evidence: what it checks is what any reader shows.
 */
export function parseJsonStrict(text: string): unknown {
  let document;
  try {
    document = parse(text, { mode: 'json' });
  } catch (error) {
    // The parser descends by recursion: a text nested deeper than the stack is not read.
    if (error instanceof RangeError) throw new SyntaxError('The JSON is nested too deeply to read');
    throw new SyntaxError(error instanceof Error ? error.message : String(error));
  }
  // Depth-first without recursion: a deeply nested text must not exhaust the stack.
  const pending: { node: ValueNode; path: string }[] = [{ node: document.body, path: '$' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path } = next;
    if (node.type === 'Object') {
      const seen = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        const at = memberPath(path, name);
        if (seen.has(name)) throw new DuplicateMemberError(at);
        seen.add(name);
        pending.push({ node: member.value, path: at });
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, index) => {
        pending.push({ node: element.value, path: `${path}[${String(index)}]` });
      });
    }
  }
  return JSON.parse(text) as unknown;
}
