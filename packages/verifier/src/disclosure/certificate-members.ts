/** The members of a version 2 `data` that carry the hash itself rather than a shown field. */
export const V2_STRUCTURE: readonly string[] = ['hash', 'hashVersion', 'selectiveDisclosure'];

/**
 * The members a certificate has beside `data` as the certificate API answers it: the id (covered),
 * the trustpoints (checked on chain) and the owner's view (`access`, `status`: the service's, never
 * shown as certified). Any other member was added to the copy by whoever handed it on.
 */
const CERTIFICATE_MEMBERS: readonly string[] = ['certID', 'data', 'metadata', 'access', 'status'];

/** How a member added beside `data` is named among the uncovered: `$.<name>`. */
const BESIDE_DATA = '$.';

/** The member a name of `unverified` stands for when it was added beside `data`; else undefined. */
export function memberBesideData(name: string): string | undefined {
  return name.startsWith(BESIDE_DATA) ? name.slice(BESIDE_DATA.length) : undefined;
}

/**
 * Members added beside `data` (a top-level `name`, `grade`, ...), as `$.<name>`: no rule reads
 * them, so a viewer that shows them must say they are claims.
 */
export function addedBesideData(certificate: Record<string, unknown>): string[] {
  return Object.keys(certificate)
    .filter((name) => !CERTIFICATE_MEMBERS.includes(name))
    .map((name) => `${BESIDE_DATA}${name}`);
}
