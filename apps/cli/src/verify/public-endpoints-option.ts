import { readFile } from 'node:fs/promises';
import {
  PUBLIC_CHAINS,
  PublicChainsError,
  readPublicChains,
  type PublicChain,
} from '@trustpoint/verifier';
import { usageError } from '../cli-error.js';

/**
 * `--public-endpoints [file]`: the public endpoints of well-known chains, asked for a network you
 * give no node for (two operators must agree). Without a file, the verifier's built-in list;
 * with one, that list instead (`{"chains": [{"name", "chainId", "genesisHash", "endpoints":
 * [{"url", "operator"}]}]}`). Not given: none is ever asked.
 */
export async function publicEndpointsOf(
  given: string | boolean | undefined,
): Promise<readonly PublicChain[] | undefined> {
  if (given === undefined || given === false) return undefined;
  if (given === true) return PUBLIC_CHAINS;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(given, 'utf8')) as unknown;
  } catch (error) {
    throw usageError(
      `--public-endpoints ${given}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    return readPublicChains(json);
  } catch (error) {
    if (error instanceof PublicChainsError) {
      throw usageError(`--public-endpoints ${given}: ${error.message}`);
    }
    throw error;
  }
}
