import { readFileSync } from 'node:fs';
import { readPublicChains, type PublicChain } from '@trustpoint/verifier';

/**
 * `TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS`: the public endpoints of well-known chains the web
 * verifier may ask when its user lists no node for a network. Unset: the verifier's built-in
 * list (undefined here). `none`: no public endpoint at all. Otherwise the path of a JSON file,
 * `{"chains": [{"name", "chainId", "genesisHash", "endpoints": [{"url", "operator"}]}]}`, read
 * once at start; a file that cannot be read or is not such a list stops the start.
 */
export function verifierPublicEndpointsFromEnv(
  env: NodeJS.ProcessEnv,
): readonly PublicChain[] | undefined {
  const given = env.TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS;
  if (given === undefined || given === '') return undefined;
  if (given === 'none') return [];
  try {
    return readPublicChains(JSON.parse(readFileSync(given, 'utf8')) as unknown);
  } catch (error) {
    throw new Error(
      `TRUSTPOINT_VERIFIER_PUBLIC_ENDPOINTS: ${given}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
