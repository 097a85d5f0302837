import { randomUUID } from 'node:crypto';
import { evidenceKey, sha256, trustPointKey } from '@trustpoint/domain';
import type { AnchorRequest } from '../../src/anchoring/anchor-record.js';

/** Distinct, valid records to anchor: each test makes its own. */
export function trustPointRequests(count: number, networkId = '31337'): AnchorRequest[] {
  const run = randomUUID();
  return Array.from({ length: count }, (_, i) => ({
    networkId,
    kind: 'trustpoint',
    recordKey: trustPointKey(`did:trustpoint:certid:${run}-${String(i)}`, 1_767_225_600_000 + i),
    hash: sha256(Buffer.from(`${run} content ${String(i)}`)),
    trustPointType: 0,
  }));
}

export function evidenceRequests(count: number, networkId = '31337'): AnchorRequest[] {
  const run = randomUUID();
  const assetHash = sha256(Buffer.from(`${run} asset`));
  return Array.from({ length: count }, (_, i) => ({
    networkId,
    kind: 'evidence',
    recordKey: evidenceKey(assetHash, 1_767_225_600 + i),
    hash: sha256(Buffer.from(`${run} evidence ${String(i)}`)),
  }));
}
