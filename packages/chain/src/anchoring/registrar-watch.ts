import { findSignerNextNonce } from '@trustpoint/db';
import { formatUnits, type FeeData, type JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';
import type { NetworkConfig } from '../networks/network-config.js';
import type { JsonRpcClient } from '../rpc/json-rpc-client.js';
import type { AnchorLogger } from './anchor-logger.js';
import { batchCost } from './batch-transaction.js';
import { feesFor, type FeePolicy, type TransactionFees } from './fees.js';
import type { NetworkHealth } from './network-health.js';
import { registryProblems } from './registry-check.js';

/**
 * What a network's anchorer knows of its registrar: whether it can pay for the next batch at
 * current fees (the network's health, told on every check), the fee data and balance it read
 * (kept a second at most, so batches sent in a burst share one look-up), and whether another
 * deployment signs with the same key.
 */
export class RegistrarWatch {
  readonly #knex: Knex;
  readonly #network: NetworkConfig;
  readonly #logger: AnchorLogger;
  readonly #onHealth: (health: NetworkHealth) => void;
  readonly #provider: JsonRpcProvider;
  readonly #rpc: JsonRpcClient;
  readonly #address: string;
  readonly #fees: FeePolicy;
  #market: { at: number; data: Promise<FeeData> } | undefined;
  #registrarBalance: { at: number; wei: Promise<bigint> } | undefined;
  #health: NetworkHealth;
  #checkedAt = 0;
  /** Whether a use of the registrar key by another deployment was reported and not yet over. */
  #keySharedReported = false;
  /** What stops the registrar writing to the registries, as last checked (`checkRegistries`). */
  #registryProblem: string | undefined;

  constructor(input: {
    knex: Knex;
    network: NetworkConfig;
    logger: AnchorLogger;
    onHealth: (health: NetworkHealth) => void;
    provider: JsonRpcProvider;
    rpc: JsonRpcClient;
    address: string;
    fees: FeePolicy;
  }) {
    this.#knex = input.knex;
    this.#network = input.network;
    this.#logger = input.logger;
    this.#onHealth = input.onHealth;
    this.#provider = input.provider;
    this.#rpc = input.rpc;
    this.#address = input.address;
    this.#fees = input.fees;
    this.#health = { networkId: input.network.networkId, state: 'unknown' };
  }

  /** The network's health as last checked. */
  get health(): NetworkHealth {
    return this.#health;
  }

  /** When the balance was last compared with a batch's cost (ms since the epoch; 0: never). */
  get checkedAt(): number {
    return this.#checkedAt;
  }

  /**
   * Compares the registrar's balance with what a batch of `recordCount` records needs at current
   * fees (its gas limit x the max fee per gas it would be signed with). Below it, the network is
   * not ready: logged once at error level when it becomes so, once at info when funded again.
   */
  async checkBalance(recordCount: number): Promise<boolean> {
    const [balance, fees] = await Promise.all([this.#balance(), this.transactionFees()]);
    const required = batchCost(recordCount, fees);
    const funded = balance >= required;
    const ready = funded && this.#registryProblem === undefined;
    const previous = this.#health.state;
    this.#checkedAt = Date.now();
    this.#health = {
      networkId: this.#network.networkId,
      state: ready ? 'ready' : 'notReady',
      ...(ready
        ? {}
        : {
            reason:
              this.#registryProblem ??
              `registrar ${this.#address} holds ${formatUnits(balance)}, the next batch needs ${formatUnits(required)} (native currency) at current fees`,
          }),
      balanceWei: balance.toString(),
      requiredWei: required.toString(),
      checkedAt: new Date(this.#checkedAt),
    };
    if (!funded && previous !== 'notReady') {
      this.#logger.error(
        {
          networkId: this.#network.networkId,
          registrar: this.#address,
          balanceWei: balance.toString(),
          requiredWei: required.toString(),
        },
        'network not ready: the registrar cannot pay for the next batch; fund it. New requests to this network fail with 503, queued records wait',
      );
    } else if (ready && previous === 'notReady') {
      this.#logger.info(
        { networkId: this.#network.networkId, balanceWei: balance.toString() },
        'network ready again: the registrar is funded and may write to the registries; queued records are sent',
      );
    }
    this.#onHealth(this.#health);
    return ready;
  }

  /**
   * Whether the registrar can write to the network's registries (`registryProblems`): each has
   * contract code and grants it REGISTRAR_ROLE. Until it can, the network is not ready (the next
   * `checkBalance` says so, with the reason): no batch is sent (a transaction to an address without
   * code succeeds and records nothing), new requests fail with 503, queued records wait. Told once
   * at error level, with what to do, and once at info when it is over.
   */
  async checkRegistries(): Promise<void> {
    const problems = await registryProblems(this.#rpc, this.#network, this.#address);
    const problem = problems.length === 0 ? undefined : problems.join('; ');
    if (problem !== undefined && problem !== this.#registryProblem) {
      this.#logger.error(
        { networkId: this.#network.networkId, registrar: this.#address, problem },
        'network not ready: the registrar cannot write to its registries. New requests to this network fail with 503, queued records wait',
      );
    } else if (problem === undefined && this.#registryProblem !== undefined) {
      this.#logger.info(
        { networkId: this.#network.networkId, registrar: this.#address },
        'the registrar can write to its registries again',
      );
    }
    this.#registryProblem = problem;
  }

  /**
   * Whether another deployment signs with this registrar key: the chain has mined transactions of
   * the key at nonces this deployment never signed (every process of one deployment takes its
   * nonces from the same `signer_nonces` row, so the chain can never be ahead of it otherwise).
   * Their nonces collide with ours (batches are re-signed, records delayed) and `reconcile` then
   * reports the other deployment's records as orphans. Told once at error level, with what to do,
   * and again when it stops; anchoring goes on, realigning nonces as a crash recovery would.
   */
  async checkKeyNotShared(): Promise<void> {
    const signed = await findSignerNextNonce(this.#knex, this.#network.networkId, this.#address);
    if (signed === undefined) return;
    const mined = await this.#rpc.transactionCount(this.#address, 'latest');
    const shared = mined > signed;
    if (shared && !this.#keySharedReported) {
      this.#logger.error(
        {
          networkId: this.#network.networkId,
          registrar: this.#address,
          minedNonce: mined,
          signedUpTo: signed - 1,
        },
        "registrar key shared: another deployment (or a person) signs with this network's registrar key; its transactions take the nonces this deployment signs with and reconcile reports its records as orphans. Give every deployment a registrar key of its own (REGISTRAR_ROLE on the registries), or run the roles of one deployment on one database. Just after restoring the database from a backup this is expected once: the nonces it signed with after the backup are on chain",
      );
    } else if (!shared && this.#keySharedReported) {
      this.#logger.info(
        { networkId: this.#network.networkId, registrar: this.#address },
        'registrar key no longer used by another deployment',
      );
    }
    this.#keySharedReported = shared;
  }

  /** The node's fee suggestion, kept a second at most: batches sent in a burst share one look-up. */
  feeData(): Promise<FeeData> {
    const now = Date.now();
    if (!this.#market || now - this.#market.at > 1_000) {
      const data = this.#provider.getFeeData();
      this.#market = { at: now, data };
      data.catch(() => {
        this.#market = undefined;
      });
    }
    return this.#market.data;
  }

  /** The registrar's balance, kept a second at most, like the fee data. */
  #balance(): Promise<bigint> {
    const now = Date.now();
    if (!this.#registrarBalance || now - this.#registrarBalance.at > 1_000) {
      const wei = this.#rpc.balance(this.#address);
      this.#registrarBalance = { at: now, wei };
      wei.catch(() => {
        this.#registrarBalance = undefined;
      });
    }
    return this.#registrarBalance.wei;
  }

  /** The fees a new batch is signed with: the node's suggestion, floor and cap applied. */
  async transactionFees(): Promise<TransactionFees> {
    return feesFor(await this.feeData(), this.#fees);
  }
}
