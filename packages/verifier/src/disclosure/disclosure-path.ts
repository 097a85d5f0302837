/**
 * Where a field sits in a certificate's payload: one segment per level, a member name or an
 * array index, never joined into one string (a member may be named `a.b`, `0` or `[1]`).
 * `['content', 'grades', 1]` is the second element of `content.grades` as the issuer made it.
 */
export type DisclosurePath = readonly (string | number)[];

/** A readable form for messages only (`content["a.b"][1]`); paths are compared as arrays. */
export function formatDisclosurePath(path: DisclosurePath): string {
  if (path.length === 0) return '(the payload)';
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

export function samePath(a: DisclosurePath, b: DisclosurePath): boolean {
  return a.length === b.length && a.every((segment, index) => segment === b[index]);
}

/** True when `path` is `ancestor` or lies under it. */
export function isWithin(path: DisclosurePath, ancestor: DisclosurePath): boolean {
  return (
    path.length >= ancestor.length && ancestor.every((segment, index) => segment === path[index])
  );
}
