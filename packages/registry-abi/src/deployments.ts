import { readFile } from 'node:fs/promises';

/**
 * The registries' generation: `batches` (TrustPointBatchRegistry, EvidenceBatchRepository: large
 * batches kept as contract code, under half the gas a record) for every new deployment; `slots`
 * (TrustPointRegistry, EvidenceRepository: one storage slot a record) for deployments made before.
 * Both answer the same `getTrustPoint` / `getEvidence` calls.
 */
export type RegistryGeneration = 'batches' | 'slots';

/** The contract names of each generation's registries. */
export const REGISTRY_CONTRACTS = {
  batches: { trustPoints: 'TrustPointBatchRegistry', evidences: 'EvidenceBatchRepository' },
  slots: { trustPoints: 'TrustPointRegistry', evidences: 'EvidenceRepository' },
} as const;

/** Where the registries of one chain live; what the services read to anchor and verify. */
export interface TrustpointDeployment {
  chainId: string;
  trustPointRegistry: string;
  evidenceRepository: string;
  admin: string;
  registrar: string;
  blockNumber: number;
  deployedAt: string;
  /** Absent in deployments recorded before batch registries existed: those are `slots`. */
  registries?: RegistryGeneration;
  /**
   * The network's permanent status registry (`TrustPointStatusRegistry`: `revocationOf(certId)`).
   * Absent in deployments recorded before it existed; the deployer adds it to them when it reuses
   * them.
   */
  statusRegistry?: string;
}

/** The deployments file (written by the deploy CLI and the local chain): one entry per chain id. */
export type DeploymentsFile = Record<string, TrustpointDeployment>;

/** The deployments file's entries; none when the file does not exist. */
export async function readDeployments(path: string): Promise<DeploymentsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return JSON.parse(text) as DeploymentsFile;
}
