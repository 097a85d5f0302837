import { z } from 'zod';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address');
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte key');

/** Batching of one network: records wait at most `maxWaitMs` for a batch of up to `maxSize`. */
export const batchConfigSchema = z.strictObject({
  maxSize: z.number().int().min(1).max(1_000).default(250),
  maxWaitMs: z.number().int().min(0).max(60_000).default(50),
});

/** One network as written in the networks file. */
export const networkFileEntrySchema = z.strictObject({
  /** What clients pass as `networkId`: the chain id in decimal, by convention. */
  networkId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/),
  name: z.string().min(1).optional(),
  rpcUrl: z.url(),
  chainId: z.number().int().positive(),
  /** Registry addresses; when omitted they come from the deployments file, by chain id. */
  trustPointRegistry: address.optional(),
  evidenceRepository: address.optional(),
  /** Environment variable that holds the registrar key; keys never live in the file. */
  signerKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/)
    .optional(),
  confirmations: z.number().int().min(1).max(64).default(1),
  explorerUrl: z.url().optional(),
  batch: batchConfigSchema.prefault({}),
});

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
  chainId: number;
  trustPointRegistry: string;
  evidenceRepository: string;
  signerKey: string;
  confirmations: number;
  explorerUrl: string | undefined;
  batch: BatchConfig;
}

export const signerKeySchema = privateKey;
