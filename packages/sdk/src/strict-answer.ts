import { AmbiguousJsonError, DuplicateMemberError, parseJsonStrict } from '@trustpoint/verifier';
import { TrustpointRefusedAnswerError } from './errors.js';

/** The record a read asked for: its kind, the member naming it, and the id asked for. */
export interface AskedRecord {
  kind: 'certificate' | 'asset' | 'evidence';
  member: string;
  id: string;
}

/**
 * The envelope of a record read to be verified, parsed as every verifier reads a certificate or an
 * evidence: a member named twice, or a number written with more than its value, is refused, since
 * another reader would show another value.
 */
function strictEnvelope(text: string, url: string): { data?: unknown } {
  let body: unknown;
  try {
    body = parseJsonStrict(text);
  } catch (error) {
    if (error instanceof AmbiguousJsonError) {
      throw new TrustpointRefusedAnswerError({
        reason: error instanceof DuplicateMemberError ? 'duplicateMember' : 'inexactNumber',
        url,
        message: `the service's answer is refused: ${error.message}, and another reader could show another value`,
        cause: error,
      });
    }
    throw new TrustpointRefusedAnswerError({
      reason: 'notJson',
      url,
      message: `the service's answer is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  return typeof body === 'object' && body !== null ? body : {};
}

/**
 * The record of an envelope, when it is the one asked for. A service of a forger's answers a
 * look-alike of its own (another certID, a genuine record): it would be verified under the id the
 * caller asked for.
 */
function recordAskedFor(envelope: { data?: unknown }, url: string, asked: AskedRecord): unknown {
  const record = envelope.data;
  const value =
    typeof record === 'object' && record !== null
      ? (record as Record<string, unknown>)[asked.member]
      : undefined;
  const answered = typeof value === 'string' ? value : undefined;
  if (answered !== asked.id) {
    throw new TrustpointRefusedAnswerError({
      reason: 'otherRecord',
      url,
      asked: asked.id,
      answered,
      message:
        answered === undefined
          ? `the service answered something else than ${asked.kind === 'asset' ? 'an' : 'a'} ${asked.kind} when asked for ${asked.id}`
          : `the service answered ${asked.kind} ${answered} when asked for ${asked.id}: not the ${asked.kind} asked for`,
    });
  }
  return record;
}

/**
 * The record of an answer read as text to be verified: parsed strictly (`strictEnvelope`) and,
 * when `asked` says which, refused unless it is that one (`recordAskedFor`). Errors name the URL
 * the answer came from, or `baseUrl`.
 */
export function strictRecord(
  answer: { data: string; response: Response },
  baseUrl: string,
  asked?: AskedRecord,
): unknown {
  const url = answer.response.url || baseUrl;
  const envelope = strictEnvelope(answer.data, url);
  return asked === undefined ? envelope.data : recordAskedFor(envelope, url, asked);
}
