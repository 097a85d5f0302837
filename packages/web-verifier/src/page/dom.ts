import { shownText } from '@trustpoint/verifier';

/**
 * Text as the page shows it: the bidirectional controls and invisible characters a certificate's
 * fields may hold written out as `\u202e`-style escapes (`shownText`, as the CLI prints them), so
 * a name such as "Diploma \u202eecila" is not shown as "Diploma alice".
 */
export function visibleText(text: string): string {
  return shownText(text);
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
