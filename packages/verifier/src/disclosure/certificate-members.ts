import { isRecord } from './certificate-payload-v2.js';

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

/** The members of a version 2 `data.selectiveDisclosure` as issued. */
const SELECTIVE_DISCLOSURE_MEMBERS: readonly string[] = ['content', 'disclosures'];

/**
 * The members of a trustpoint in `metadata` as the certificate API answers it: what the chain read
 * checks (type, network, timestamp, hash, contract, transaction) and the service's own view of it
 * (`status`, a signature's `signature`, a failure's `failure`).
 */
const TRUSTPOINT_MEMBERS: readonly string[] = [
  'type',
  'networkId',
  'status',
  'smartContract',
  'transactionHash',
  'trustPointHash',
  'timestamp',
  'signature',
  'failure',
];

/**
 * Members added inside what a version 2 copy shows beside the hashed fields: in
 * `data.selectiveDisclosure` (`selectiveDisclosure.grade`) and in a trustpoint of `metadata`
 * (`metadata[0].note`). No rule reads them.
 */
export function addedToStructure(certificate: Record<string, unknown>): string[] {
  const data = isRecord(certificate.data) ? certificate.data : {};
  const selective = isRecord(data.selectiveDisclosure) ? data.selectiveDisclosure : {};
  const metadata = Array.isArray(certificate.metadata) ? (certificate.metadata as unknown[]) : [];
  return [
    ...Object.keys(selective)
      .filter((name) => !SELECTIVE_DISCLOSURE_MEMBERS.includes(name))
      .map((name) => `selectiveDisclosure.${name}`),
    ...metadata.flatMap((item, index) =>
      isRecord(item)
        ? Object.keys(item)
            .filter((name) => !TRUSTPOINT_MEMBERS.includes(name))
            .map((name) => `metadata[${String(index)}].${name}`)
        : [],
    ),
  ];
}
