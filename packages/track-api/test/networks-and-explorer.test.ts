import { EvidenceRepository__factory, HARDHAT_DEV_KEY } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './support/checked-request.js';
import { BASE, startTrackApi, type TrackApiFixture } from './support/track-api-fixture.js';

const EXPLORER = 'https://amoy.polygonscan.com/';

describe.each(testBackends())('Networks and explorer verification on %s', (backend) => {
  let api: TrackApiFixture;

  beforeAll(async () => {
    api = await startTrackApi(backend, { explorerUrl: EXPLORER });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when anyone asks GET /networks without a token, then each network comes with its addresses, explorer and confirmations, and never its key or RPC URL', async () => {
    const response = await request(api.app).get(`${BASE}/networks`);

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      networks: [
        {
          networkId: 31337,
          name: 'test chain',
          chainId: 31337,
          trustPointRegistry: api.network.trustPointRegistry,
          evidenceRepository: api.network.evidenceRepository,
          explorerUrl: EXPLORER,
          confirmations: 1,
        },
      ],
    });
    const text = JSON.stringify(response.body).toLowerCase();
    expect(text).not.toContain(HARDHAT_DEV_KEY.slice(2).toLowerCase());
    expect(text).not.toContain(api.network.rpcUrl.toLowerCase());
  });

  it('when an evidence is verified on a network with an explorer, then it links the transaction and the read page, and what a person types there returns its hash', async () => {
    const owner = await api.user();
    const asset = await api.createAsset(owner.token);
    const evidence = await api.addEvidence(owner.token, asset.trackID, { step: 'explored' });

    const response = await request(api.app)
      .get(`${BASE}/evidences/${evidence.hash}`)
      .set('Authorization', `Bearer ${owner.token}`);

    expect(response.status).toBe(200);
    const [verification] = response.body.data.evidences as {
      explorer: { inputs: { value: string }[]; expected: { value: string }[] };
    }[];
    expect(verification?.explorer).toEqual({
      transactionUrl: `https://amoy.polygonscan.com/tx/${String(evidence.transactionHash)}`,
      contractUrl: `https://amoy.polygonscan.com/address/${String(evidence.smartContract)}#readContract`,
      function: 'getEvidence',
      inputs: [
        { name: 'assetHash', type: 'string', value: asset.assetHash },
        { name: 'timestamp', type: 'uint256', value: String(evidence.timestamp) },
      ],
      expected: [{ name: 'hash', type: 'string', value: evidence.hash }],
    });
    const provider = new JsonRpcProvider(api.chain.url, undefined, { staticNetwork: true });
    try {
      const repository = EvidenceRepository__factory.connect(
        String(evidence.smartContract),
        provider,
      );
      const [assetHash, timestamp] = verification?.explorer.inputs ?? [];
      expect(await repository.getEvidence(assetHash?.value ?? '', timestamp?.value ?? '')).toBe(
        verification?.explorer.expected[0]?.value,
      );
    } finally {
      provider.destroy();
    }
  });
});
