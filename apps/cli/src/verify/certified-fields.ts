import {
  formatDisclosurePath,
  memberBesideData,
  unwrapEnvelope,
  type CertificateHashCheck,
  type WithheldField,
} from '@trustpoint/verifier';

/** What a verification proves of the fields a certificate shows. */
export interface CertifiedFields {
  /**
   * The fields the anchored hash covers, with their values (`certID` and names of `data`):
   * empty when the hash does not match, as nothing is then proven. A withheld content field is
   * absent from `content`.
   */
  certified: Record<string, unknown>;
  /** Shown fields the hash does not cover (version 1): claims of whoever gave the JSON. */
  claims: Record<string, unknown>;
}

/** The covered and the uncovered fields of the certificate as given, by the hash check. */
export function certifiedFields(certificate: unknown, hash: CertificateHashCheck): CertifiedFields {
  const json = unwrapEnvelope(certificate) as Record<string, unknown>;
  const data = (json.data ?? {}) as Record<string, unknown>;
  // `certID`, names of `data`, and members added beside `data`.
  const valueOf = (name: string) => {
    if (name === 'certID') return json.certID;
    const beside = memberBesideData(name);
    return beside === undefined ? data[name] : json[beside];
  };
  const pick = (names: readonly string[]) =>
    Object.fromEntries(
      names.filter((name) => valueOf(name) !== undefined).map((name) => [name, valueOf(name)]),
    );
  return {
    certified: hash.matches ? pick(hash.covered) : {},
    claims: pick(hash.unverified),
  };
}

/** A withheld field as a person reads it: an element by its path, a member by its object. */
export function withheldText(field: WithheldField): string {
  return field.kind === 'element'
    ? formatDisclosurePath(field.path)
    : `a member of ${formatDisclosurePath(field.objectPath)}`;
}

/** The lines `trustpoint verify` prints about what the hash covers. */
export function coverageLines(certificate: unknown, hash: CertificateHashCheck): string[] {
  const covered = hash.covered.length === 0 ? 'nothing' : hash.covered.join(', ');
  const claims = Object.entries(certifiedFields(certificate, hash).claims).map(
    ([name, value]) => `${name} ${JSON.stringify(value)}`,
  );
  const notCovered = `NOT covered, claims of whoever gave the JSON (unverified): ${
    claims.length === 0 ? 'none' : claims.join('; ')
  }`;
  if (hash.version === 2) {
    return [
      `Covered by the hash (version 2): ${covered}`,
      `Withheld by the holder: ${hash.withheld.length === 0 ? 'none' : hash.withheld.map(withheldText).join('; ')}`,
      // Members added to a copy after issuance: the rule reads none of them.
      ...(claims.length === 0 ? [] : [notCovered]),
    ];
  }
  return [`Covered by the hash (version 1): ${covered}`, notCovered];
}
