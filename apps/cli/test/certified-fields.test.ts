import type { CertificateHashCheck } from '@trustpoint/verifier';
import { describe, expect, it } from 'vitest';
import { coverageLines } from '../src/verify/certified-fields.js';

const hash = (fields: Partial<CertificateHashCheck>): CertificateHashCheck => ({
  given: 'ab'.repeat(32),
  recomputed: 'ab'.repeat(32),
  matches: true,
  detail: '',
  version: 2,
  covered: ['hashVersion', 'certID', 'name', 'content'],
  unverified: [],
  withheld: [],
  ...fields,
});

const certificate = {
  certID: 'did:trustpoint:certid:x',
  data: { name: 'Diploma of Ada', content: { grade: 'A' }, grade: 'A+ with honours' },
  metadata: [],
};

describe('what trustpoint verify prints about the hash', () => {
  it('when a version 2 copy shows a member added after issuance, then it is printed with its value as an unverified claim', () => {
    expect(coverageLines(certificate, hash({ unverified: ['grade'] }))).toEqual([
      'Covered by the hash (version 2): hashVersion, certID, name, content',
      'Withheld by the holder: none',
      'NOT covered, claims of whoever gave the JSON (unverified): grade "A+ with honours"',
    ]);
  });

  it('when a copy shows a member added beside data, then it is printed by its path with its value', () => {
    const withTopLevel = { ...certificate, name: 'Diploma with honours' };
    expect(coverageLines(withTopLevel, hash({ unverified: ['$.name'] }))).toContain(
      'NOT covered, claims of whoever gave the JSON (unverified): $.name "Diploma with honours"',
    );
  });

  it('when a version 2 copy shows only what the rule covers, then no such line is printed', () => {
    expect(coverageLines(certificate, hash({}))).toEqual([
      'Covered by the hash (version 2): hashVersion, certID, name, content',
      'Withheld by the holder: none',
    ]);
  });
});
