import { gunzipSync } from 'node:zlib';
import { textProblem } from '@trustpoint/domain';

function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return textProblem(value) !== undefined;
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(
      ([name, member]) => textProblem(name) !== undefined || holdsUnstorableText(member),
    );
  }
  return false;
}

/**
 * Whether a request's body is JSON holding text the shared rule refuses (U+0000, a lone
 * surrogate) in any string or member name. Such a body may never be accepted: its text would be
 * stored altered (U+FFFD) or not at all (PostgreSQL has no U+0000), so the fuzz fails a 2xx to it.
 */
export function bodyHoldsUnstorableText(
  headers: readonly (readonly [string, string])[],
  body: Buffer,
): boolean {
  const header = (name: string) =>
    headers.find(([candidate]) => candidate.toLowerCase() === name)?.[1] ?? '';
  if (!/json/i.test(header('content-type'))) return false;
  let text: string;
  try {
    text = (/gzip/i.test(header('content-encoding')) ? gunzipSync(body) : body).toString('utf8');
  } catch {
    return false;
  }
  try {
    return holdsUnstorableText(JSON.parse(text));
  } catch {
    return false;
  }
}
