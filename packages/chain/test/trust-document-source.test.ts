import type { LocalChain } from '@trustpoint/contracts';
import { readTrustDocument } from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../src/networks/network-config.js';
import { TrustDocumentSource } from '../src/networks/trust-document-source.js';
import { startTestChain } from './support/test-chain.js';

describe('TrustDocumentSource', () => {
  let chain: LocalChain;
  let network: NetworkConfig;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain('batches'));
  }, 60_000);

  afterAll(async () => {
    await chain.stop();
  });

  const genesisOfChain = async () => {
    const response = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockByNumber',
        params: ['0x0', false],
      }),
    });
    return ((await response.json()) as { result: { hash: string } }).result.hash;
  };

  it('when built, then it names the origin, the chain id, the genesis hash its node gives, and the current and earlier registries, in the format verifiers read', async () => {
    const earlier = `0x${'12'.repeat(20)}`;
    const source = new TrustDocumentSource({
      origin: 'https://certs.example.org',
      name: 'Example Certificates',
      networks: () => [network],
      registriesInUse: () =>
        Promise.resolve([
          { networkId: network.networkId, kind: 'trustPointRegistry', address: earlier },
          // The current one, as records name it in another case: not listed twice.
          {
            networkId: network.networkId,
            kind: 'trustPointRegistry',
            address: network.trustPointRegistry.toLowerCase(),
          },
        ]),
    });

    const document = await source.document();

    expect(readTrustDocument(JSON.parse(JSON.stringify(document)))).toEqual(document);
    expect(document).toMatchObject({
      origin: 'https://certs.example.org',
      name: 'Example Certificates',
      networks: [
        {
          networkId: network.networkId,
          chainId: network.chainId,
          genesisHash: (await genesisOfChain()).toLowerCase(),
        },
      ],
    });
    expect(document.networks[0]?.registries).toEqual([
      { kind: 'trustPointRegistry', address: network.trustPointRegistry },
      { kind: 'evidenceRepository', address: network.evidenceRepository },
      ...(network.statusRegistry === undefined
        ? []
        : [{ kind: 'statusRegistry', address: network.statusRegistry }]),
      { kind: 'trustPointRegistry', address: earlier },
    ]);
  });

  it('when asked many times at once and again within its age, then it is built once', async () => {
    let builds = 0;
    const source = new TrustDocumentSource({
      origin: 'https://certs.example.org',
      name: 'Example',
      networks: () => [network],
      registriesInUse: () => {
        builds += 1;
        return Promise.resolve([]);
      },
    });

    const documents = await Promise.all(Array.from({ length: 20 }, () => source.document()));
    await source.document();

    expect(builds).toBe(1);
    expect(new Set(documents).size).toBe(1);
  });

  it('when the node does not answer, then building fails and is tried again at the next request', async () => {
    let builds = 0;
    const source = new TrustDocumentSource({
      origin: 'https://certs.example.org',
      name: 'Example',
      networks: () => [{ ...network, networkId: '999', rpcUrl: 'http://127.0.0.1:9' }],
      registriesInUse: () => {
        builds += 1;
        return Promise.resolve([]);
      },
    });

    await expect(source.document()).rejects.toThrow();
    await expect(source.document()).rejects.toThrow();
    expect(builds).toBe(2);
  });
});
