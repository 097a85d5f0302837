import type { CertificateHashCheck } from '@trustpoint/verifier';
import { describe, expect, it } from 'vitest';
import { coverageRows, coverageSentence, isClaim } from '../src/page/hash-coverage.js';

const check = (fields: Partial<CertificateHashCheck>): CertificateHashCheck => ({
  given: 'ab'.repeat(32),
  recomputed: 'ab'.repeat(32),
  matches: true,
  detail: '',
  version: 2,
  covered: [],
  unverified: [],
  withheld: [],
  ...fields,
});

describe('what the anchored hash covers, as the page says it', () => {
  it('when the hash is version 1, then the name, description, issuer and dates shown are claims, said in one sentence and per field', () => {
    const hash = check({
      version: 1,
      covered: ['content'],
      unverified: ['name', 'description', 'issuer', 'issuedOn', 'expires'],
    });

    expect(coverageSentence(hash)).toBe(
      'Hash version 1 (an earlier rule): the anchored hash covers only the content. The name, the description, the issuer, the issue date and the expiry date shown are NOT covered: unverified claims of whoever gave you this JSON.',
    );
    expect(coverageRows(hash)).toEqual([
      ['Covered by the hash (version 1)', 'content'],
      [
        'NOT covered, claims of whoever gave the JSON (unverified)',
        'name, description, issuer, issuedOn, expires',
      ],
    ]);
    expect(['name', 'issuedOn', 'fileName', 'type'].map((field) => isClaim(hash, field))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('when the hash is version 2 and the holder withheld fields, then every shown field is covered and the withheld ones are listed by path', () => {
    const hash = check({
      covered: ['hashVersion', 'certID', 'name', 'content'],
      withheld: [
        { kind: 'member', objectPath: ['content', 'student'], digest: 'x' },
        { kind: 'element', path: ['content', 'grades', 1], digest: 'y' },
      ],
    });

    expect(coverageSentence(hash)).toBe(
      'Hash version 2: the anchored hash covers every field shown (hashVersion, certID, name, content). The holder withheld 2 content field(s): a member of content.student; content.grades[1].',
    );
    expect(coverageRows(hash)).toEqual([
      ['Covered by the hash (version 2)', 'hashVersion, certID, name, content'],
      ['Withheld by the holder', 'a member of content.student; content.grades[1]'],
    ]);
    expect(isClaim(hash, 'name')).toBe(false);
  });

  it('when a version 2 copy shows a member added after issuance, then the page does not say every field is covered: the member is named as an unverified claim', () => {
    const hash = check({
      covered: ['hashVersion', 'certID', 'name', 'content'],
      unverified: ['grade'],
    });

    expect(coverageSentence(hash)).toBe(
      'Hash version 2: the anchored hash covers hashVersion, certID, name, content. Grade shown is NOT covered: unverified claims of whoever gave you this JSON.',
    );
    expect(coverageRows(hash)).toContainEqual([
      'NOT covered, claims of whoever gave the JSON (unverified)',
      'grade',
    ]);
    expect(isClaim(hash, 'grade')).toBe(true);
  });

  it('when a copy shows a member added beside data, then the page names it as an unverified claim, beside data', () => {
    const hash = check({
      covered: ['hashVersion', 'certID', 'name', 'content'],
      unverified: ['$.name'],
    });

    expect(coverageSentence(hash)).toBe(
      'Hash version 2: the anchored hash covers hashVersion, certID, name, content. Name (beside data) shown is NOT covered: unverified claims of whoever gave you this JSON.',
    );
    expect(coverageRows(hash)).toContainEqual([
      'NOT covered, claims of whoever gave the JSON (unverified)',
      '$.name',
    ]);
  });

  it('when a version 2 copy is refused, then the refusal is named and nothing is covered', () => {
    const hash = check({ matches: false, refusal: 'notWithholdable' });

    expect(coverageSentence(hash)).toContain('breaks the rule (notWithholdable)');
    expect(coverageRows(hash)).toContainEqual(['Refused by the version 2 rule', 'notWithholdable']);
  });
});
