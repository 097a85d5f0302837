import {
  decodeGetEvidenceResponse,
  decodeGetTrustPointResponse,
  getEvidenceRequest,
  getTrustPointRequest,
  type EvidenceLookup,
  type TrustPointLookup,
} from '@trustpoint/domain';
import type { NetworkConfig } from '../networks/network-config.js';
import { DEFAULT_RPC_TIMEOUT_MS } from '../rpc/json-rpc-provider.js';

/** A read that could not be answered: the node is down, or answered something unexpected. */
export interface UnreachableRead {
  found: 'unreachable';
  detail: string;
}

export type TrustPointRead = TrustPointLookup | UnreachableRead;
export type EvidenceRead = EvidenceLookup | UnreachableRead;

/**
 * On-chain reads for verification (method 1): the same single `eth_call` any outside client makes,
 * decoded with the domain rules into found (with hash and type), not found, or unreachable.
 * `smartContract` names the registry that holds the record (its row's `smart_contract`): a record
 * anchored before the network moved to other registries is read where it is. Both generations of
 * registries (`TrustPointRegistry`, `TrustPointBatchRegistry`, ...) answer the same call.
 */
export class RecordReader {
  constructor(private readonly timeoutMs = DEFAULT_RPC_TIMEOUT_MS) {}

  async readTrustPoint(
    network: NetworkConfig,
    certId: string,
    timestampMs: number,
    smartContract: string = network.trustPointRegistry,
  ): Promise<TrustPointRead> {
    const body = getTrustPointRequest({
      smartContract,
      certId,
      timestampMs,
    });
    return this.#read(network, body, decodeGetTrustPointResponse);
  }

  async readEvidence(
    network: NetworkConfig,
    assetHash: string,
    timestampSeconds: number,
    smartContract: string = network.evidenceRepository,
  ): Promise<EvidenceRead> {
    const body = getEvidenceRequest({
      smartContract,
      assetHash,
      timestampSeconds,
    });
    return this.#read(network, body, decodeGetEvidenceResponse);
  }

  async #read<T>(
    network: NetworkConfig,
    body: unknown,
    decode: (response: unknown) => T,
  ): Promise<T | UnreachableRead> {
    let response: unknown;
    try {
      const reply = await fetch(network.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      response = await reply.json();
    } catch (error) {
      return {
        found: 'unreachable',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    try {
      return decode(response);
    } catch (error) {
      return {
        found: 'unreachable',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }
}
