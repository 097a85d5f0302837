import type { EvidencesVerification, EvidenceVerification } from '@trustpoint/verifier';
import { describe, expect, it } from 'vitest';
import { evidenceSummaryRows } from '../src/page/evidence-details.js';

const TRACK_ID = 'did:trustpoint:trackid:0194f0c4-7d2a-7c3e-9b1f-2a4e6c8d0f12';
const HASH = 'ab'.repeat(32);

const anchored = (unverified: string[]): EvidenceVerification => ({
  assetHash: HASH,
  networkId: 31337,
  timestamp: 1_767_225_600,
  hash: 'cd'.repeat(32),
  coverage: {
    covered: ['timestamp', 'hash', 'metadata', 'userOwner'],
    fromChain: ['smartContract', 'transactionHash'],
    unverified,
  },
  attempts: [],
  verdict: 'anchored',
  detail: 'on chain with the hash recomputed from its metadata',
});

const verification = (
  hashVersion: 1 | 2,
  covered: string[],
  unverified: string[],
  matches = true,
): EvidencesVerification => ({
  asset: {
    assetId: 'pallet-42',
    assetHash: HASH,
    hashVersion,
    recomputed: matches ? HASH : 'ef'.repeat(32),
    matches,
    coverage: { covered, fromChain: ['networkId'], unverified },
  },
  verified: matches,
  verdict: matches ? 'verified' : 'mismatch',
  evidences: [anchored(['status']), anchored(['status'])],
});

const asset = (more: Record<string, unknown>) => ({
  statusCode: 200,
  data: { trackID: TRACK_ID, assetId: 'pallet-42', data: { id: 'P-42' }, ...more },
});

describe('what an evidence verdict shows', () => {
  it('when a version 2 asset matches, then its trackID and owner are shown covered, its status a claim', () => {
    const rows = evidenceSummaryRows(
      verification(2, ['hashVersion', 'trackID', 'owner', 'assetId', 'data'], ['status']),
      asset({ hashVersion: 2, owner: 'did:user:u1', status: 'anchored' }),
    );

    expect(rows).toEqual([
      ['Asset', 'pallet-42'],
      [
        'Asset hash check',
        'version 2: assetHash recomputed from {hashVersion, trackID, owner, assetId, data}: matches',
      ],
      ['hashVersion (covered by the asset hash)', '2'],
      ['trackID (covered by the asset hash)', TRACK_ID],
      ['owner (covered by the asset hash)', 'did:user:u1'],
      ['data (covered by the asset hash)', '{"id":"P-42"}'],
      ['status (NOT covered: a claim of whoever gave the JSON)', 'anchored'],
      ['Evidence fields covered by each hash or its key', 'timestamp, hash, metadata, userOwner'],
      ['Evidence fields checked against the chain', 'smartContract, transactionHash'],
      ['Evidence fields NOT covered: claims of whoever gave the JSON', 'status'],
      [
        'Evidences',
        '2: each one listed is checked; the chain cannot say whether this JSON left others out',
      ],
    ]);
  });

  it('when a version 1 asset names an owner, then its trackID and owner are shown as claims', () => {
    const rows = evidenceSummaryRows(
      verification(1, ['assetId', 'data'], ['trackID', 'owner']),
      asset({ owner: 'did:user:u1' }),
    );

    expect(rows).toContainEqual([
      'trackID (NOT covered: a claim of whoever gave the JSON)',
      TRACK_ID,
    ]);
    expect(rows).toContainEqual([
      'owner (NOT covered: a claim of whoever gave the JSON)',
      'did:user:u1',
    ]);
    expect(rows).toContainEqual([
      'Asset hash check',
      'version 1: assetHash recomputed from {assetId, data}: matches',
    ]);
  });

  it('when the asset does not match, then nothing is shown as covered', () => {
    const rows = evidenceSummaryRows(
      verification(2, ['hashVersion', 'trackID', 'owner', 'assetId', 'data'], [], false),
      asset({ hashVersion: 2, owner: 'did:user:someone-else' }),
    );

    expect(rows.filter(([term]) => term.includes('(covered by'))).toEqual([]);
    expect(rows).toContainEqual([
      'owner (would be covered, but mismatches)',
      'did:user:someone-else',
    ]);
  });

  it('when evidences are covered differently, then each set is shown with how many it holds', () => {
    const result: EvidencesVerification = {
      verified: true,
      verdict: 'verified',
      evidences: [anchored(['status']), anchored(['status', 'failure'])],
    };

    const rows = evidenceSummaryRows(result, {});

    expect(rows).toContainEqual([
      'Evidence fields NOT covered: claims of whoever gave the JSON (1 of 2)',
      'status, failure',
    ]);
  });
});
