import { HARDHAT_DEV_KEY, TrustPointRegistry__factory } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const EXPLORER = 'https://sepolia.etherscan.io';

describe.each(testBackends())('Networks and explorer verification on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend, { explorerUrl: EXPLORER });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when anyone asks GET /networks without a token, then each network comes with its addresses, explorer and confirmations, and never its key or RPC URL', async () => {
    const response = await request(api.app).get('/cert/v2/networks');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      statusCode: 200,
      message: 'Retrieved 1 network(s)',
      data: {
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
      },
    });
    const text = JSON.stringify(response.body).toLowerCase();
    expect(text).not.toContain(HARDHAT_DEV_KEY.slice(2).toLowerCase());
    expect(text).not.toContain(api.network.rpcUrl.toLowerCase());
  });

  it('when a trustpoint is verified on a network with an explorer, then it links the transaction and the read page, with the inputs to type and the answer to expect', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true });
    const { metadata } = (
      await request(api.app)
        .get(`/cert/v2/certificates/certID/${created.certID}`)
        .set('Authorization', `Bearer ${owner.token}`)
    ).body.data as {
      metadata: { smartContract: string; transactionHash: string; timestamp: number }[];
    };
    const [evidence] = metadata;
    if (!evidence) throw new Error('an Evidence trustpoint');

    const response = await request(api.app).get(`/cert/v2/trustpoints/certID/${created.certID}`);

    expect(response.status).toBe(200);
    expect(response.body.data.trustpoints[0].explorer).toEqual({
      transactionUrl: `${EXPLORER}/tx/${evidence.transactionHash}`,
      contractUrl: `${EXPLORER}/address/${evidence.smartContract}#readContract`,
      function: 'getTrustPoint',
      inputs: [
        { name: 'certId', type: 'string', value: created.certID },
        { name: 'timestamp', type: 'uint256', value: String(evidence.timestamp) },
      ],
      expected: [
        { name: 'hash', type: 'string', value: created.data.hash },
        { name: 'trustPointType', type: 'uint8', value: '0' },
      ],
    });
  });

  it('when a person calls the read function with the inputs given, then the chain answers what is expected', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true });
    await request(api.app)
      .patch(`/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);
    const response = await request(api.app).get(`/cert/v2/trustpoints/certID/${created.certID}`);
    const provider = new JsonRpcProvider(api.chain.url, undefined, { staticNetwork: true });

    try {
      for (const trustpoint of response.body.data.trustpoints as {
        smartContract: string;
        explorer: {
          contractUrl: string;
          function: 'getTrustPoint';
          inputs: { value: string }[];
          expected: { value: string }[];
        };
      }[]) {
        const { contractUrl, inputs, expected } = trustpoint.explorer;
        // The contract of the read page, as a person would open it on the explorer.
        const address = /\/address\/(0x[0-9a-fA-F]{40})#readContract$/.exec(contractUrl)?.[1];
        expect(address).toBe(trustpoint.smartContract);
        const registry = TrustPointRegistry__factory.connect(address ?? '', provider);

        const answer = await registry.getTrustPoint(inputs[0]?.value ?? '', inputs[1]?.value ?? '');

        expect(answer.map(String)).toEqual(expected.map((value) => value.value));
      }
    } finally {
      provider.destroy();
    }
    expect(response.body.data.trustpoints).toHaveLength(2);
  });
});
