import { z } from 'zod';

// In a `u` regex a surrogate pair is one code point, so only unpaired halves match \p{Cs}.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `text` cannot be stored and hashed exactly as sent, or `undefined` when it can. PostgreSQL
 * stores no U+0000 in `text` or `jsonb`, and a lone UTF-16 surrogate has no UTF-8 form (RFC 8785
 * canonical JSON is defined over valid Unicode only), so both are refused rather than altered.
 */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'Must not contain the character U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) {
    return 'Must be valid Unicode: a lone UTF-16 surrogate (such as \\ud800) is not';
  }
  return undefined;
}

/** A zod check refusing what `textProblem` refuses, for string schemas of other kinds (URLs). */
export function refuseUnstorableText(context: z.core.ParsePayload<string>): void {
  const problem = textProblem(context.value);
  if (problem !== undefined) {
    context.issues.push({ code: 'custom', message: problem, input: context.value });
  }
}

/** A caller's string that is stored or hashed: any Unicode text but U+0000 (see `textProblem`). */
export function textSchema(): z.ZodString {
  return z.string().check(refuseUnstorableText);
}
