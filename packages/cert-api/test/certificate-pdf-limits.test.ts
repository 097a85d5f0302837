// GET /certificates/{type}/{id}/pdf needs no token for a public certificate, and each PDF is a
// verification on the service's node and a rendering: how many the process makes at once is
// bounded, as for posted copies (found by a probe: four slow PDFs at once held /healthz 9.8 s).
import { freePort } from '@trustpoint/contracts';
import { SERVICE_BUSY_BODY } from '@trustpoint/http';
import { testBackends } from '@trustpoint/test-database';
import { startJsonRpcRelay, type JsonRpcRelay } from '@trustpoint/test-doubles/json-rpc-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('certificate PDFs at once on %s', (backend) => {
  let api: CertApiFixture;
  let relay: JsonRpcRelay;
  /** The eth_calls the node was asked. */
  let ethCalls = 0;
  /** While set, the node holds every eth_call until it is resolved (a slow node). */
  let hold: Promise<void> | undefined;
  let certID: string;

  beforeAll(async () => {
    // The service's node is a relay in front of the chain, which counts and may hold its calls.
    const rpcPort = await freePort();
    api = await startCertApi(backend, {
      rpcUrl: `http://127.0.0.1:${String(rpcPort)}`,
      certificatePdfsAtOnce: 1,
    });
    relay = await startJsonRpcRelay(
      api.chain.url,
      async (call, reply) => {
        if (call.method !== 'eth_call') return reply;
        ethCalls += 1;
        await hold;
        return reply;
      },
      rpcPort,
    );
    const { token } = await api.user();
    ({ certID } = await api.certify(token, { public: true }));
  }, 120_000);

  afterAll(async () => {
    await relay.close();
    await api.close();
  });

  const pdf = () =>
    request(api.app)
      .get(`/cert/v2/certificates/certID/${encodeURIComponent(certID)}/pdf`)
      .buffer(true)
      .then((response) => response);

  it('when more PDFs are asked for than are made at once and wait, then the extra one is a 503 with Retry-After at once, and the others are made', async () => {
    let release!: () => void;
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked = ethCalls;
    // One is made (its verification held at the node), one waits its turn, one is refused;
    // which of the last two arrives first is the network's choice.
    const running = pdf();
    while (ethCalls === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    const [second, third] = [pdf(), pdf()];
    const refused = await Promise.race([second, third]);
    const networks = await request(api.app).get('/cert/v2/networks');
    hold = undefined;
    release();
    const answers = await Promise.all([running, second, third]);

    expect(refused.status).toBe(503);
    expect(refused.body).toEqual(SERVICE_BUSY_BODY);
    expect(refused.headers['retry-after']).toBe('2');
    // The rest of the service answers meanwhile.
    expect(networks.status).toBe(200);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 503]);
    expect(answers[0].headers['content-type']).toBe('application/pdf');
  });
});
