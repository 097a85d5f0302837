import { z } from 'zod';

import { trustPointTypeCode, type TrustPointTypeName } from '../trustpoint/trustpoint-type.js';

/** One argument or result as a block explorer's read form shows it: name, Solidity type, value. */
const explorerValueSchema = z.object({
  name: z.string(),
  type: z.enum(['string', 'uint256', 'uint8']),
  value: z.string().meta({ description: 'Exactly as to type it (or as the explorer shows it)' }),
});

/**
 * Verification method 2, prepared for a person: where the record's transaction and the contract's
 * read page are on the network's block explorer, which read function to call there, what to type
 * in its fields and what it must answer.
 */
export const explorerVerificationSchema = z
  .object({
    transactionUrl: z.url().meta({ description: 'The transaction that anchored the record' }),
    contractUrl: z.url().meta({
      description: "The contract's read page (`/address/<smartContract>#readContract`)",
    }),
    function: z.enum(['getTrustPoint', 'getEvidence']),
    inputs: z.array(explorerValueSchema).meta({ description: "The function's fields, in order" }),
    expected: z.array(explorerValueSchema).meta({
      description: 'What the call must return for the record to be verified',
    }),
  })
  .meta({ id: 'ExplorerVerification' });

export type ExplorerVerification = z.infer<typeof explorerVerificationSchema>;

interface AnchoredRecord {
  /** The network's explorer, e.g. `https://sepolia.etherscan.io`; none: no explorer check. */
  explorerUrl: string | undefined;
  smartContract: string | null;
  transactionHash: string | null;
}

/** `base` + `path`, whether or not `base` ends with a slash (explorers may live under a path). */
function explorerLink(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

function linksOf(record: AnchoredRecord) {
  const { explorerUrl, smartContract, transactionHash } = record;
  if (explorerUrl === undefined || smartContract === null || transactionHash === null) {
    return undefined;
  }
  return {
    transactionUrl: explorerLink(explorerUrl, `/tx/${transactionHash}`),
    contractUrl: explorerLink(explorerUrl, `/address/${smartContract}#readContract`),
  };
}

/**
 * How to check a certificate trustpoint by hand on an Etherscan-style explorer:
 * `getTrustPoint(certId, timestamp)` must return its hash and type code. Undefined when the network
 * has no explorer or the trustpoint is not anchored yet.
 */
export function trustPointExplorerVerification(
  record: AnchoredRecord & {
    certId: string;
    timestamp: number;
    hash: string;
    type: TrustPointTypeName;
  },
): ExplorerVerification | undefined {
  const links = linksOf(record);
  if (links === undefined) return undefined;
  return {
    ...links,
    function: 'getTrustPoint',
    inputs: [
      { name: 'certId', type: 'string', value: record.certId },
      { name: 'timestamp', type: 'uint256', value: String(record.timestamp) },
    ],
    expected: [
      { name: 'hash', type: 'string', value: record.hash },
      { name: 'trustPointType', type: 'uint8', value: String(trustPointTypeCode(record.type)) },
    ],
  };
}

/**
 * How to check an asset evidence by hand on an Etherscan-style explorer:
 * `getEvidence(assetHash, timestamp)` must return its hash. Undefined when the network has no
 * explorer or the evidence is not anchored yet.
 */
export function evidenceExplorerVerification(
  record: AnchoredRecord & { assetHash: string; timestamp: number; hash: string },
): ExplorerVerification | undefined {
  const links = linksOf(record);
  if (links === undefined) return undefined;
  return {
    ...links,
    function: 'getEvidence',
    inputs: [
      { name: 'assetHash', type: 'string', value: record.assetHash },
      { name: 'timestamp', type: 'uint256', value: String(record.timestamp) },
    ],
    expected: [{ name: 'hash', type: 'string', value: record.hash }],
  };
}
