import { HARDHAT_DEV_KEY, useIntervalMining, type LocalChain } from '@trustpoint/contracts';
import { Wallet } from 'ethers';
import type { AnchorLogger } from '../../src/anchoring/anchor-logger.js';
import { DEFAULT_FEE_POLICY } from '../../src/anchoring/fees.js';
import type { NetworkConfig } from '../../src/networks/network-config.js';
import { startTestChain } from './test-chain.js';

/** The registrar of every test network: Hardhat's account #0. */
export const REGISTRAR = new Wallet(HARDHAT_DEV_KEY).address;

/**
 * A local chain that mines like a real network: a block every `blockMs` (automine off), and a
 * network asking 2 confirmations whose batches are replaced after 2 blocks unmined. The registries
 * are deployed first, one block per transaction, so that a test does not wait for them.
 */
export async function startIntervalChain(
  blockMs = 1_000,
): Promise<{ chain: LocalChain; network: NetworkConfig; control: ChainControl; dataDir: string }> {
  const { chain, network, dataDir } = await startTestChain();
  await useIntervalMining(chain.url, blockMs, chain.writeHeaders);
  return {
    chain,
    network: {
      ...network,
      confirmations: 2,
      fees: { ...DEFAULT_FEE_POLICY, replaceAfterBlocks: 2 },
    },
    control: new ChainControl(chain.url, blockMs, chain.writeHeaders),
    dataDir,
  };
}

/** Hardhat's test methods: what a test does to the chain that real networks do on their own. */
export class ChainControl {
  #id = 0;

  constructor(
    readonly url: string,
    readonly blockMs: number,
    /** The chain's `writeHeaders`: these methods are writes. */
    readonly writeHeaders: Readonly<Record<string, string>>,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params });
    const post = () =>
      fetch(this.url, {
        method: 'POST',
        headers: { ...this.writeHeaders, 'content-type': 'application/json' },
        body,
      });
    let response: Response;
    try {
      response = await post();
    } catch {
      // A kept-alive connection the node closed while this process was busy (opening PGlite
      // blocks it for seconds) fails once with ECONNRESET; a new connection does not.
      response = await post();
    }
    const reply = (await response.json()) as { result?: T; error?: { message: string } };
    if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result as T;
  }

  /** No blocks at all until `resumeMining` (automine stays off). */
  async pauseMining(): Promise<void> {
    await this.call('evm_setIntervalMining', [0]);
  }

  async resumeMining(): Promise<void> {
    await this.call('evm_setIntervalMining', [this.blockMs]);
  }

  async mineBlock(): Promise<void> {
    await this.call('evm_mine');
  }

  async blockNumber(): Promise<number> {
    return Number(await this.call<string>('eth_blockNumber'));
  }

  async setNextBlockBaseFee(wei: bigint): Promise<void> {
    await this.call('hardhat_setNextBlockBaseFeePerGas', [`0x${wei.toString(16)}`]);
  }

  async setBalance(address: string, wei: bigint): Promise<void> {
    await this.call('hardhat_setBalance', [address, `0x${wei.toString(16)}`]);
  }

  async snapshot(): Promise<string> {
    return this.call<string>('evm_snapshot');
  }

  async revert(snapshot: string): Promise<void> {
    if (!(await this.call<boolean>('evm_revert', [snapshot]))) throw new Error('revert refused');
  }

  /** Whether the node knows the transaction (in its pool or mined). */
  async knows(hash: string): Promise<boolean> {
    return (await this.call<unknown>('eth_getTransactionByHash', [hash])) !== null;
  }

  async receiptBlock(hash: string): Promise<number | undefined> {
    const receipt = await this.call<{ blockNumber: string } | null>('eth_getTransactionReceipt', [
      hash,
    ]);
    return receipt ? Number(receipt.blockNumber) : undefined;
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** An engine logger that keeps what it is told. */
export function capturingLogger(): { logger: AnchorLogger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const keep = (level: LogLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, message, fields });
  };
  return { logger: { info: keep('info'), warn: keep('warn'), error: keep('error') }, lines };
}

export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
