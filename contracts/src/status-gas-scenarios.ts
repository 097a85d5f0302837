import { id, NonceManager, type Signer } from 'ethers';
import { TrustPointStatusRegistry__factory } from '../typechain-types';
import { GAS_BATCH_SIZE } from './gas-scenarios';

/** Gas used by each write of the status registry, as mined (21,000 base included). */
export interface StatusRegistrationGas {
  revocationSingle: number;
  revocationBatch: number;
  revocationBatchPerRecord: number;
  revocationBatchResend: number;
}

// Fixed inputs: the same calldata on every run, so the figures are exact and comparable.
const BASE_MS = 1_767_225_600_000;
const revocationKey = (i: number) =>
  id(`did:trustpoint:certid:019b7a2c-8e00-7000-8000-${String(i).padStart(12, '0')}`);

async function gasOf(sent: Promise<{ wait(): Promise<{ gasUsed: bigint } | null> }>) {
  const receipt = await (await sent).wait();
  if (!receipt) throw new Error('Transaction was not mined');
  return Number(receipt.gasUsed);
}

/**
 * Deploys a fresh status registry and measures each write once: a single revocation, a batch of
 * GAS_BATCH_SIZE new ones, and the re-send of that batch after a crash (all records present).
 */
export async function measureStatusRegistrationGas(sender: Signer): Promise<StatusRegistrationGas> {
  const signer = new NonceManager(sender);
  const account = await signer.getAddress();
  const status = await new TrustPointStatusRegistry__factory(signer).deploy(account, account);
  await status.waitForDeployment();

  const revocationSingle = await gasOf(status.registerRevocation(revocationKey(0), BASE_MS));
  const records = Array.from({ length: GAS_BATCH_SIZE }, (_, i) => ({
    key: revocationKey(i + 1),
    timestamp: BASE_MS + i,
  }));
  const revocationBatch = await gasOf(status.registerRevocations(records));
  const revocationBatchResend = await gasOf(status.registerRevocations(records));
  return {
    revocationSingle,
    revocationBatch,
    revocationBatchPerRecord: Math.ceil(revocationBatch / GAS_BATCH_SIZE),
    revocationBatchResend,
  };
}
