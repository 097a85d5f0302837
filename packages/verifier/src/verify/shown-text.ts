/**
 * The characters a certificate's text may hold that change how the rest of it reads without
 * showing themselves: C0 controls but tab and newline (a carriage return or an escape sequence
 * redraws a terminal line), DEL and the C1 controls, the bidirectional marks, embeddings,
 * overrides and isolates (a name "Diploma \u202eecila" reads "Diploma alice"), the zero-width
 * and other invisible format characters (an issuer "exam\u200bple.org" looks like
 * "example.org"), the fillers that draw as blank, and the tag characters and variation selectors (text
 * hidden in plain sight: an emoji's presentation selector is escaped too).
 */
// Controls and combining characters are what the class is for: each is matched on its own.
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

/**
 * Text from a certificate, an evidence or a service's answer as a verifier shows it to a person
 * (the CLI's terminal, the web verifier's page): every hidden character (`HIDDEN` above) written
 * out as `\u....` escapes, everything else as it is, so what a person reads is what the hash covers.
 */
export function shownText(text: string): string {
  return text.replace(HIDDEN, (char) => {
    let escaped = '';
    // Beyond the BMP, its two UTF-16 units: `\udb40\udc68` reads back as the character in JSON
    // and JavaScript alike, so a CLI's JSON output stays JSON.
    for (let unit = 0; unit < char.length; unit += 1) {
      escaped += `\\u${char.charCodeAt(unit).toString(16).padStart(4, '0')}`;
    }
    return escaped;
  });
}

/**
 * The last moment an ECMAScript date can name (year 275760), in milliseconds since the epoch: a
 * later time cannot be shown as a date (the service refuses one, `epochMillisSchema`).
 */
export const LATEST_DATE_MILLIS = 8_640_000_000_000_000;

/**
 * A time (milliseconds since the epoch) as a verifier shows it: its ISO 8601 date, or, for a time
 * no date can name (past year 275760 either way, a fraction, not a number), the number itself,
 * said to be so. A certificate's or a node's time must not stop a verifier from saying what it found.
 */
export function shownTime(millis: number): string {
  return Number.isInteger(millis) && Math.abs(millis) <= LATEST_DATE_MILLIS
    ? new Date(millis).toISOString()
    : `${String(millis)} ms since the epoch (no date)`;
}
