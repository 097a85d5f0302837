import {
  encodeRecordBatch,
  EVIDENCE_BUCKET_BITS,
  MAX_BATCH_RECORDS,
  TRUSTPOINT_BUCKET_BITS,
} from '@trustpoint/registry-abi';
import { NonceManager, sha256, solidityPackedKeccak256, toUtf8Bytes, type Signer } from 'ethers';
import {
  EvidenceBatchRepository__factory,
  TrustPointBatchRegistry__factory,
} from '../typechain-types';

/** Gas used by each write of the batch registries, as mined (21,000 base included). */
export interface BatchRegistrationGas {
  trustPointSingle: number;
  trustPointSingleRevocation: number;
  trustPointSlots3: number;
  trustPointData3: number;
  trustPointData10: number;
  trustPointData100: number;
  trustPointData100PerRecord: number;
  trustPointDataLargest: number;
  trustPointDataLargestPerRecord: number;
  trustPointDataResend100: number;
  evidenceSingle: number;
  evidenceData10: number;
  evidenceData100: number;
  evidenceData100PerRecord: number;
  evidenceDataLargest: number;
  evidenceDataLargestPerRecord: number;
}

// Fixed inputs: the same calldata on every run, so the figures are exact and comparable. Each
// scenario writes into buckets of its own, as records of a quiet network would.
const BASE_MS = 1_767_225_600_000 - (1_767_225_600_000 % 1024);
const BASE_S = 1_767_225_600;
const certId = (i: number) =>
  `did:trustpoint:certid:019b7a2c-8e00-7000-8000-${String(i).padStart(12, '0')}`;
const hashOf = (label: string) => sha256(toUtf8Bytes(label));
const recordKey = (id: string, timestamp: number) =>
  solidityPackedKeccak256(['string', 'uint256'], [id, timestamp]);

async function gasOf(sent: Promise<{ wait(): Promise<{ gasUsed: bigint } | null> }>) {
  const receipt = await (await sent).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  return Number(receipt.gasUsed);
}

/** Trustpoints `first..first+n-1`, one millisecond apart from `timestamp`. */
const trustPoints = (first: number, n: number, timestamp: number, type = 0) =>
  Array.from({ length: n }, (_, i) => ({
    key: recordKey(certId(first + i), timestamp + i),
    hash: hashOf(`content ${String(first + i)}`),
    type,
    timestamp: timestamp + i,
  }));

/**
 * Deploys fresh batch registries and measures each write once: single records and 3 records in
 * slots, data batches of 3, 10, 100 and the largest (511) records, the re-send of the batch of
 * 100, and the same for evidences.
 */
export async function measureBatchRegistrationGas(sender: Signer): Promise<BatchRegistrationGas> {
  const signer = new NonceManager(sender);
  const account = await signer.getAddress();
  const registry = await new TrustPointBatchRegistry__factory(signer).deploy(account, account);
  const repository = await new EvidenceBatchRepository__factory(signer).deploy(account, account);
  await registry.waitForDeployment();
  await repository.waitForDeployment();
  const bucketMs = (n: number) => BASE_MS + n * 1024;

  const [single] = trustPoints(0, 1, bucketMs(0));
  const [revocation] = trustPoints(1, 1, bucketMs(0) + 1, 1);
  if (!single || !revocation) throw new Error('no record');
  const trustPointSingle = await gasOf(
    registry.registerTrustPoint(single.key, single.hash, 0, single.timestamp),
  );
  const trustPointSingleRevocation = await gasOf(
    registry.registerTrustPoint(revocation.key, revocation.hash, 1, revocation.timestamp),
  );
  const trustPointSlots3 = await gasOf(
    registry.registerTrustPoints(
      trustPoints(10, 3, bucketMs(1)).map((r) => ({ ...r, trustPointType: r.type })),
    ),
  );
  const data = async (first: number, n: number, bucket: number) => {
    const { records, buckets } = encodeRecordBatch(
      trustPoints(first, n, bucketMs(bucket)),
      TRUSTPOINT_BUCKET_BITS,
    );
    return {
      records,
      buckets,
      gas: await gasOf(registry.registerTrustPointBatch(records, buckets)),
    };
  };
  const trustPointData3 = (await data(20, 3, 10)).gas;
  const trustPointData10 = (await data(30, 10, 20)).gas;
  const batch100 = await data(100, 100, 30);
  const trustPointDataResend100 = await gasOf(
    registry.registerTrustPointBatch(batch100.records, batch100.buckets),
  );
  const trustPointDataLargest = (await data(1000, MAX_BATCH_RECORDS, 40)).gas;

  // Evidences of distinct assets, 50 a second: a batch of 100 fills in 2 s.
  const evidences = (first: number, n: number) =>
    Array.from({ length: n }, (_, i) => {
      const assetHash = hashOf(`asset ${String(first + i)}`).slice(2);
      const timestamp = BASE_S + first + Math.floor(i / 50);
      return {
        key: recordKey(assetHash, timestamp),
        hash: hashOf(`evidence ${String(first + i)}`),
        timestamp,
      };
    });
  const [evidence] = evidences(0, 1);
  if (!evidence) throw new Error('no record');
  const evidenceSingle = await gasOf(
    repository.registerEvidence(evidence.key, evidence.hash, evidence.timestamp),
  );
  const evidenceData = async (first: number, n: number) => {
    const { records, buckets } = encodeRecordBatch(evidences(first, n), EVIDENCE_BUCKET_BITS);
    return gasOf(repository.registerEvidenceBatch(records, buckets));
  };
  // Offsets far apart: each batch in buckets of its own.
  const evidenceData10 = await evidenceData(10_000, 10);
  const evidenceData100 = await evidenceData(20_000, 100);
  const evidenceDataLargest = await evidenceData(30_000, MAX_BATCH_RECORDS);

  return {
    trustPointSingle,
    trustPointSingleRevocation,
    trustPointSlots3,
    trustPointData3,
    trustPointData10,
    trustPointData100: batch100.gas,
    trustPointData100PerRecord: Math.ceil(batch100.gas / 100),
    trustPointDataLargest,
    trustPointDataLargestPerRecord: Math.ceil(trustPointDataLargest / MAX_BATCH_RECORDS),
    trustPointDataResend100,
    evidenceSingle,
    evidenceData10,
    evidenceData100,
    evidenceData100PerRecord: Math.ceil(evidenceData100 / 100),
    evidenceDataLargest,
    evidenceDataLargestPerRecord: Math.ceil(evidenceDataLargest / MAX_BATCH_RECORDS),
  };
}
