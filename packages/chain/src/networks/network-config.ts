import { parseUnits } from 'ethers';
import { z } from 'zod';
import { DEFAULT_FEE_POLICY, type FeePolicy } from '../anchoring/fees.js';
import type { QueueCapacity } from './queue-capacity.js';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address');
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte key');

/**
 * Batching of one network: records wait at most `maxWaitMs` for a batch of up to `maxSize`. Without
 * `maxSize`, a batch holds what suits the registries: 511 records (one full data contract) on batch
 * registries, 250 on slot registries. Batch registries never take more than 511 in one batch.
 *
 * `sendWhenIdle`: while no batch of this deployment waits to be mined on the network, what is
 * queued goes at once instead of waiting `maxWaitMs` for company; records arriving meanwhile wait
 * as usual. For chains that mine each transaction as it arrives (the embedded one, automining
 * development nodes), where waiting only lengthens every answer: `bench:evidences` on PostgreSQL
 * 3,114-3,254 evidences/s with it against 2,495-2,910/s without. Default false: on a chain with
 * blocks and fees, a record sent alone is often followed by another transaction for the same block,
 * paying a transaction's base cost twice.
 */
export const batchConfigSchema = z.strictObject({
  maxSize: z.number().int().min(1).max(1_000).optional(),
  maxWaitMs: z.number().int().min(0).max(60_000).default(50),
  sendWhenIdle: z.boolean().optional(),
});

/**
 * An amount per gas in gwei, as a JSON number or a decimal string (at most 9 decimals: 1 wei), read
 * into wei. Gwei because that is how wallets and explorers show fees.
 */
const gwei = z
  .union([z.number().nonnegative().max(1_000_000_000), z.string().regex(/^\d{1,10}(\.\d{1,9})?$/)])
  .transform((value, context) => {
    const text = typeof value === 'number' ? value.toFixed(9) : value;
    try {
      return parseUnits(text, 'gwei');
    } catch {
      context.addIssue({ code: 'custom', message: 'must be an amount in gwei' });
      return z.NEVER;
    }
  });

/** One network as written in the networks file. */
export const networkFileEntrySchema = z.strictObject({
  /** What clients pass as `networkId`, which the APIs take as a number: by convention the chain id. */
  networkId: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive decimal number, as clients send it'),
  name: z.string().min(1).optional(),
  // fetch refuses a URL with credentials (and would quote it, key and all, in its error): a
  // provider's key goes in the path (`/v3/<key>`), as providers give it.
  rpcUrl: z.url().refine((url) => {
    if (!URL.canParse(url)) return true; // z.url() says what is wrong with it
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  }, 'must not carry credentials (user:password@): put the API key in the path, as the provider gives it'),
  chainId: z.number().int().positive(),
  /** Registry addresses; when omitted they come from the deployments file, by chain id. */
  trustPointRegistry: address.optional(),
  evidenceRepository: address.optional(),
  /** The revocation status registry (`revocationOf(certId)`); from the deployments file when omitted. */
  statusRegistry: address.optional(),
  /** Environment variable that holds the registrar key; keys never live in the file. */
  signerKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/)
    .optional(),
  confirmations: z.number().int().min(1).max(64).default(1),
  explorerUrl: z.url().optional(),
  batch: batchConfigSchema.prefault({}),
  /** Highest max fee per gas (legacy: gas price) ever signed, in gwei. Default 500. */
  maxFeePerGasCap: gwei.default(DEFAULT_FEE_POLICY.maxFeePerGasCap),
  /** Lowest priority fee per gas (tip) signed, in gwei. Default 0: the node's suggestion. */
  minPriorityFeePerGas: gwei.default(DEFAULT_FEE_POLICY.minPriorityFeePerGas),
  /** Blocks a batch may stay unmined before it is replaced with fees 12.5% higher. Default 3. */
  replaceAfterBlocks: z
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(DEFAULT_FEE_POLICY.replaceAfterBlocks),
  /** The network's usual time between blocks, which sizes the default `anchorTimeoutMs`. */
  blockTimeMs: z.number().int().min(0).max(600_000).optional(),
  /**
   * How long a synchronous request waits for its record. Default: 30 s, or three times the time
   * its confirmations take at `blockTimeMs` when that is longer.
   */
  anchorTimeoutMs: z.number().int().min(1_000).max(3_600_000).optional(),
  /** The network's block gas limit, which sizes the default `maxQueuedRecords`. Default 30,000,000. */
  blockGasLimit: z.number().int().min(1_000_000).max(10_000_000_000).optional(),
  /**
   * Records pending anchoring on this network past which creations are refused (503 `networkBusy`
   * with `Retry-After`). Default: what the chain takes in one anchor timeout, `blockGasLimit` /
   * 11,000 gas a record / `blockTimeMs` (1 s when absent) x `anchorTimeoutMs`. At least 2: a
   * qualified certificate queues two records.
   */
  maxQueuedRecords: z.number().int().min(2).max(100_000_000).optional(),
  /**
   * How creations on this network are answered when a request states no `Prefer`: `sync` waits
   * for the record (201, or 503/202 after `anchorTimeoutMs`), `async` answers 202 at once.
   */
  acknowledgement: z.enum(['sync', 'async']).default('sync'),
  /**
   * Whether the launcher's local user (`local-admin`, whose token `npm start` prints) may anchor
   * on this network. Default false: an operator's networks are for the users the operator
   * chooses (`trustpoint admin`), not for a token printed on a console.
   */
  localUser: z.boolean().default(false),
});

/** A synchronous request's wait when the networks file names none: see `anchorTimeoutMs`. */
export function defaultAnchorTimeoutMs(confirmations: number, blockTimeMs?: number): number {
  return Math.max(30_000, 3 * (confirmations + 1) * (blockTimeMs ?? 0));
}

export const networksFileSchema = z.strictObject({
  networks: z.array(networkFileEntrySchema).min(1),
});

export type NetworksFile = z.infer<typeof networksFileSchema>;
export type BatchConfig = z.infer<typeof batchConfigSchema>;

/** A network ready to use: everything resolved, the key included (never log this object). */
export interface NetworkConfig {
  networkId: string;
  name: string;
  rpcUrl: string;
  /**
   * HTTP headers the anchorer sends to the node with every request: the embedded chain's write
   * credential (`Authorization`), which its relay requires of anything but reads. Secret, like the
   * key: never published, logged or shown.
   */
  rpcHeaders?: Readonly<Record<string, string>>;
  chainId: number;
  trustPointRegistry: string;
  evidenceRepository: string;
  /** Where revocations are readable from the certID alone, when deployed. */
  statusRegistry?: string;
  signerKey: string;
  confirmations: number;
  explorerUrl: string | undefined;
  batch: BatchConfig;
  /** Fee cap, tip floor and replacement; `DEFAULT_FEE_POLICY` when absent. */
  fees?: FeePolicy;
  /** A synchronous request's wait; the anchoring engine's anchor timeout when absent. */
  anchorTimeoutMs?: number;
  /**
   * The queue limit and the rate the chain drains it (`queueCapacity`); when absent, the defaults
   * for the network's anchor timeout (a 30 M gas block a second).
   */
  queue?: QueueCapacity;
  /** How a creation with no `Prefer` is answered; `sync` when absent. */
  acknowledgement?: 'sync' | 'async';
  /** In the launcher's local user's plan (`localUser` in the networks file). */
  localUser?: boolean;
}

export const signerKeySchema = privateKey;
