/**
 * JSON as the fuzzer writes it: a tree that can say what a JavaScript value cannot (duplicate and
 * `__proto__` members, number tokens beyond a double, nesting deeper than a recursive writer
 * could serialize), written out as text by `jsonText`.
 */
export type JsonNode =
  /** A literal token as written: `true`, `null`, `1e400`, `-0`, ... */
  | { readonly kind: 'token'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | { readonly kind: 'object'; readonly members: readonly (readonly [string, JsonNode])[] }
  /** `depth` arrays (or single-member objects) nested around `inner`. */
  | {
      readonly kind: 'nested';
      readonly depth: number;
      readonly container: 'array' | 'object';
      readonly inner: JsonNode;
    };

export const jsonToken = (text: string): JsonNode => ({ kind: 'token', text });
export const jsonString = (value: string): JsonNode => ({ kind: 'string', value });

/** A JSON value (as `JSON.parse` gives) as a node. */
export function jsonNodeOf(value: unknown): JsonNode {
  if (typeof value === 'string') return jsonString(value);
  if (Array.isArray(value)) return { kind: 'array', items: value.map(jsonNodeOf) };
  if (typeof value === 'object' && value !== null) {
    return {
      kind: 'object',
      members: Object.entries(value).map(([key, member]) => [key, jsonNodeOf(member)] as const),
    };
  }
  // `undefined` and functions have no JSON text: `JSON.stringify` gives undefined for them.
  const text = JSON.stringify(value) as string | undefined;
  return jsonToken(text ?? 'null');
}

/**
 * The node as JSON text. Strings go through `JSON.stringify`, which escapes U+0000 and lone
 * surrogates (`\ud800`), so the text itself is valid UTF-8 holding them.
 */
export function jsonText(node: JsonNode): string {
  switch (node.kind) {
    case 'token':
      return node.text;
    case 'string':
      return JSON.stringify(node.value);
    case 'array':
      return `[${node.items.map(jsonText).join(',')}]`;
    case 'object':
      return `{${node.members.map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`).join(',')}}`;
    case 'nested': {
      const [open, close] = node.container === 'array' ? ['[', ']'] : ['{"a":', '}'];
      return open.repeat(node.depth) + jsonText(node.inner) + close.repeat(node.depth);
    }
  }
}

/** The node as a form or query value: strings as they are, anything else as JSON text. */
export function formText(node: JsonNode): string {
  return node.kind === 'string' ? node.value : jsonText(node);
}
