import { randomUUID } from 'node:crypto';
import { evidenceKey, sha256, trustPointKey } from '@trustpoint/domain';
import type { AnchorRequest } from '../../src/anchoring/anchor-record.js';

// Each call's records take timestamps after every earlier call's, in time buckets of their own
// (trustpoints 1,024 ms, evidences 16 s), as a live service's do: a batch registry takes slot
// records only for buckets no data batch has passed yet.
let nextTrustPointMs = 1_767_225_600_000;
let nextEvidenceSeconds = 1_767_225_600;

/** Distinct, valid records to anchor: each test makes its own. */
export function trustPointRequests(count: number, networkId = '31337'): AnchorRequest[] {
  const run = randomUUID();
  const base = nextTrustPointMs;
  nextTrustPointMs += count + 1_024;
  return Array.from({ length: count }, (_, i) => ({
    networkId,
    kind: 'trustpoint',
    recordKey: trustPointKey(`did:trustpoint:certid:${run}-${String(i)}`, base + i),
    timestamp: base + i,
    hash: sha256(Buffer.from(`${run} content ${String(i)}`)),
    trustPointType: 0,
  }));
}

export function evidenceRequests(count: number, networkId = '31337'): AnchorRequest[] {
  const run = randomUUID();
  const assetHash = sha256(Buffer.from(`${run} asset`));
  const base = nextEvidenceSeconds;
  nextEvidenceSeconds += count + 16;
  return Array.from({ length: count }, (_, i) => ({
    networkId,
    kind: 'evidence',
    recordKey: evidenceKey(assetHash, base + i),
    timestamp: base + i,
    hash: sha256(Buffer.from(`${run} evidence ${String(i)}`)),
  }));
}
