// The development chain as `trustpoint start` and `npm start` run it. Its own entry point
// (`@trustpoint/contracts/dev-chain`), loaded only when the embedded chain is wanted: nothing a
// production install runs needs Hardhat.
import { HARDHAT_DEV_KEY, type TrustpointDeployment } from '@trustpoint/registry-abi';
import { Wallet } from 'ethers';
import { chainWriterProvider } from './chain-writer';
import { ensureDeployment } from './deployments-file';
import { startLocalChain, type LocalChain, type LocalChainOptions } from './local-chain';

/** The running development chain and the registries deployed on it. */
export interface DevChain {
  url: string;
  port: number;
  /** What the service's writers send to be relayed anything but reads: see `LocalChain`. */
  writeHeaders: Readonly<Record<string, string>>;
  deployment: TrustpointDeployment;
  /** Transactions replayed from the chain's journal at start. */
  restoredTransactions: number;
  /** Settles when the chain's node process ends (`LocalChain.ended`). */
  ended: LocalChain['ended'];
  stop(): Promise<void>;
}

/**
 * Starts the journaled local chain (`startLocalChain`) and deploys the registries on it once, with
 * Hardhat's account #0 as admin and registrar, recorded in `deploymentsFile`: a later start finds
 * them there and reuses them. Stops the chain again when the deployment fails.
 */
export async function startDevChain(
  options: LocalChainOptions & { deploymentsFile: string },
): Promise<DevChain> {
  const { deploymentsFile, ...chainOptions } = options;
  const chain = await startLocalChain(chainOptions);
  const provider = chainWriterProvider(chain.url, chain.writeHeaders);
  try {
    const { deployment } = await ensureDeployment(
      new Wallet(HARDHAT_DEV_KEY, provider),
      deploymentsFile,
    );
    return {
      url: chain.url,
      port: chain.port,
      writeHeaders: chain.writeHeaders,
      deployment,
      restoredTransactions: chain.replayed,
      ended: chain.ended,
      stop: () => chain.stop(),
    };
  } catch (error) {
    await chain.stop();
    throw error;
  } finally {
    provider.destroy();
  }
}
