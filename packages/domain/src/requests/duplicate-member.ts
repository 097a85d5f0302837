import { duplicateMember } from '@trustpoint/verifier';
import type { FieldError } from '../errors/error-body.js';

/**
 * The member a JSON request body names twice (`{"name": "A", "name": "B"}`), as the field error a
 * 400 gives, or `undefined`. `JSON.parse` keeps the last value and other readers the first, so
 * taking such a body would certify, track or change something the client may not have meant: every
 * JSON body is refused for it, as every verifier refuses a certificate that does. A text nested
 * deeper than the scanner reads is refused as well.
 */
export function duplicateMemberProblem(text: string): FieldError | undefined {
  let member: string | undefined;
  try {
    member = duplicateMember(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { field: 'body', error: 'Nested too deeply to read' };
  }
  return member === undefined
    ? undefined
    : {
        // `$.data.name` as `body.data.name`.
        field: `body${member.slice(1)}`,
        error:
          'Given twice: a JSON object must name each member once (readers disagree on which value it holds)',
      };
}
