import { describe, expect, it } from 'vitest';
import { EXPIRES_PROBLEM, expiresProblem } from '../src/certificates/certificate-expiry.js';

describe('expiresProblem', () => {
  const issuedOn = 1_767_225_600_000;

  it('when expires is the moment of issue or earlier, then it is a problem on body.expires', () => {
    // Act
    const problems = [issuedOn, issuedOn - 1, 0, Math.floor(issuedOn / 1000)].map((expires) =>
      expiresProblem(expires, issuedOn),
    );

    // Assert
    for (const problem of problems) {
      expect(problem).toEqual({ field: 'body.expires', error: EXPIRES_PROBLEM });
    }
  });

  it('when expires is later than the moment of issue, or absent, or not a time, then there is none', () => {
    // Act
    const problems = [issuedOn + 1, undefined, null, 'tomorrow', -5].map((expires) =>
      expiresProblem(expires, issuedOn),
    );

    // Assert: a value that is not a time is the body's schema's to report.
    expect(problems).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
