import { NonceManager, sha256, solidityPackedKeccak256, toUtf8Bytes, type Signer } from 'ethers';
import { EvidenceRepository__factory, TrustPointRegistry__factory } from '../typechain-types';

/** Records per batch in the gas scenarios: the batch size the goals are stated for. */
export const GAS_BATCH_SIZE = 100;

/** Gas used by each registration scenario, as mined. */
export interface RegistrationGas {
  trustPointSingleEvidence: number;
  trustPointSingleRevocation: number;
  trustPointBatch: number;
  trustPointBatchPerRecord: number;
  trustPointBatchResend: number;
  evidenceSingle: number;
  evidenceBatch: number;
  evidenceBatchPerRecord: number;
  evidenceBatchResend: number;
}

// Fixed inputs: the same calldata on every run, so the figures are exact and comparable.
const BASE_MS = 1_767_225_600_000;
const certId = (i: number) =>
  `did:trustpoint:certid:019b7a2c-8e00-7000-8000-${String(i).padStart(12, '0')}`;
const hashOf = (label: string) => sha256(toUtf8Bytes(label));
const trustPointKey = (id: string, timestamp: number) =>
  solidityPackedKeccak256(['string', 'uint256'], [id, timestamp]);

async function gasOf(sent: Promise<{ wait(): Promise<{ gasUsed: bigint } | null> }>) {
  const receipt = await (await sent).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  return Number(receipt.gasUsed);
}

/**
 * Deploys fresh registries and measures each registration path once: single records, a batch of
 * GAS_BATCH_SIZE new records, and the re-send of that batch after a crash (all records present).
 */
export async function measureRegistrationGas(sender: Signer): Promise<RegistrationGas> {
  // Counts nonces locally: a JSON-RPC node may answer the next nonce query from a stale cache.
  const signer = new NonceManager(sender);
  const account = await signer.getAddress();
  const registry = await new TrustPointRegistry__factory(signer).deploy(account, account);
  const repository = await new EvidenceRepository__factory(signer).deploy(account, account);
  await registry.waitForDeployment();
  await repository.waitForDeployment();

  const trustPointSingleEvidence = await gasOf(
    registry.registerTrustPoint(trustPointKey(certId(0), BASE_MS), hashOf('content 0'), 0),
  );
  const trustPointSingleRevocation = await gasOf(
    registry.registerTrustPoint(
      trustPointKey(certId(0), BASE_MS + 1),
      hashOf(`Certificate ${certId(0)} has been revoked`),
      1,
    ),
  );
  const trustPoints = Array.from({ length: GAS_BATCH_SIZE }, (_, i) => ({
    key: trustPointKey(certId(i + 1), BASE_MS + i),
    hash: hashOf(`content ${String(i + 1)}`),
    trustPointType: 0,
  }));
  const trustPointBatch = await gasOf(registry.registerTrustPoints(trustPoints));
  const trustPointBatchResend = await gasOf(registry.registerTrustPoints(trustPoints));

  const assetHash = hashOf('asset').slice(2);
  const evidenceSingle = await gasOf(
    repository.registerEvidence(trustPointKey(assetHash, 1_767_225_600), hashOf('evidence 0')),
  );
  const evidences = Array.from({ length: GAS_BATCH_SIZE }, (_, i) => ({
    key: trustPointKey(assetHash, 1_767_225_601 + i),
    hash: hashOf(`evidence ${String(i + 1)}`),
  }));
  const evidenceBatch = await gasOf(repository.registerEvidences(evidences));
  const evidenceBatchResend = await gasOf(repository.registerEvidences(evidences));

  return {
    trustPointSingleEvidence,
    trustPointSingleRevocation,
    trustPointBatch,
    trustPointBatchPerRecord: Math.ceil(trustPointBatch / GAS_BATCH_SIZE),
    trustPointBatchResend,
    evidenceSingle,
    evidenceBatch,
    evidenceBatchPerRecord: Math.ceil(evidenceBatch / GAS_BATCH_SIZE),
    evidenceBatchResend,
  };
}
