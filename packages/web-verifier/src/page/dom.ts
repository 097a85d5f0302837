/**
 * Text as the page shows it: the bidirectional controls (and other invisible format controls) a
 * certificate's fields may hold written out as `\u202e`-style escapes, so a name such as
 * "Diploma \u202eecila" is not shown as "Diploma alice" (the CLI escapes the same characters).
 */
export function visibleText(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A new element with its text (never markup: everything shown comes from data). */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = visibleText(text);
  if (className !== undefined) node.className = className;
  return node;
}

export function byId<T extends HTMLElement>(id: string, kind: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof kind)) throw new Error(`the page has no #${id} of the expected kind`);
  return found;
}
