import {
  formatDisclosurePath,
  memberBesideData,
  type CertificateHashCheck,
  type WithheldField,
} from '@trustpoint/verifier';

/**
 * What the anchored hash of a certificate covers, as the page says it (the wording of
 * `trustpoint verify`): version 2 covers every shown field and lists what the holder withheld;
 * version 1 covers the content or the file only, the rest shown being claims.
 */

const listed = (names: readonly string[]) => (names.length === 0 ? 'none' : names.join(', '));

/** A withheld field as a person reads it: an element by its path, a member by its object. */
export function withheldText(field: WithheldField): string {
  return field.kind === 'element'
    ? formatDisclosurePath(field.path)
    : `a member of ${formatDisclosurePath(field.objectPath)}`;
}

const FIELD_WORDS: Record<string, string> = {
  name: 'the name',
  description: 'the description',
  issuer: 'the issuer',
  issuedOn: 'the issue date',
  expires: 'the expiry date',
  content: 'the content',
  fileHash: 'the file hash',
};

const inWords = (names: readonly string[]) => {
  const words = names.map((name) => {
    const beside = memberBesideData(name);
    return beside === undefined ? (FIELD_WORDS[name] ?? name) : `${beside} (beside data)`;
  });
  return words.length <= 1
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
};

/** One sentence under the verdict: what a match of the hash proves, and what it does not. */
export function coverageSentence(hash: CertificateHashCheck): string {
  if (hash.version === 2) {
    if (hash.refusal !== undefined) {
      return `Hash version 2: this copy breaks the rule (${hash.refusal}), so nothing it shows is covered.`;
    }
    const withheld =
      hash.withheld.length === 0
        ? ''
        : ` The holder withheld ${String(hash.withheld.length)} content field(s): ${hash.withheld.map(withheldText).join('; ')}.`;
    if (hash.unverified.length === 0) {
      return `Hash version 2: the anchored hash covers every field shown (${listed(hash.covered)}).${withheld}`;
    }
    // Members added to a copy after issuance (anything `data` shows that the rule does not read).
    return `Hash version 2: the anchored hash covers ${listed(hash.covered)}.${withheld}${notCovered(hash)}`;
  }
  const covered =
    hash.covered.length === 0
      ? 'nothing that was checked here (the file was not given)'
      : `only ${inWords(hash.covered)}`;
  return `Hash version 1 (an earlier rule): the anchored hash covers ${covered}.${notCovered(hash)}`;
}

/** The sentence naming the shown fields the hash does not cover, with its leading space; none: ''. */
const notCovered = (hash: CertificateHashCheck) =>
  hash.unverified.length === 0
    ? ''
    : ` ${capitalised(inWords(hash.unverified))} shown ${hash.unverified.length === 1 ? 'is' : 'are'} NOT covered: unverified claims of whoever gave you this JSON.`;

/** The summary row listing what `notCovered` names. */
const NOT_COVERED_ROW = 'NOT covered, claims of whoever gave the JSON (unverified)';

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The summary's rows about the hash's coverage. */
export function coverageRows(hash: CertificateHashCheck): [string, string][] {
  const covered = hash.covered.length === 0 ? 'nothing' : hash.covered.join(', ');
  if (hash.version === 2) {
    return [
      ['Covered by the hash (version 2)', covered],
      [
        'Withheld by the holder',
        hash.withheld.length === 0 ? 'none' : hash.withheld.map(withheldText).join('; '),
      ],
      ...(hash.refusal === undefined
        ? []
        : [['Refused by the version 2 rule', hash.refusal] as [string, string]]),
      ...(hash.unverified.length === 0
        ? []
        : [[NOT_COVERED_ROW, listed(hash.unverified)] as [string, string]]),
    ];
  }
  return [
    ['Covered by the hash (version 1)', covered],
    [NOT_COVERED_ROW, listed(hash.unverified)],
  ];
}

/** Whether a shown field of `data` is a claim the hash does not cover. */
export function isClaim(hash: CertificateHashCheck, field: string): boolean {
  if (hash.unverified.includes(field)) return true;
  // Version 1 covers the content or the file's bytes only: a file name shown is a claim too.
  return hash.version === 1 && field === 'fileName';
}
