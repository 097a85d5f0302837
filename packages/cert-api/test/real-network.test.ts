import { certificateSchema, type Certificate } from '@trustpoint/domain';
import { testBackends } from '@trustpoint/test-database';
import { confirmationsOf } from '@trustpoint/test-kit/fixtures';
import { deliveringWebhooks } from '@trustpoint/test-kit/suites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates?type=content&networkId=31337';
const BLOCK_MS = 2_000;
const CONFIRMATIONS = 2;

// Asynchronous certificates on a node that mines like a real network: a block every 2 s whatever
// arrives (automine off) and 2 confirmations, so an answer can only be "pending" and anchoring
// takes blocks. The webhook goes to a real receiver that fails first and checks signatures.
describe.each(testBackends())(
  'Certificates on a chain that mines like a real one, on %s',
  (backend) => {
    let api: CertApiFixture;

    beforeAll(async () => {
      api = await startCertApi(backend, {
        intervalMiningMs: BLOCK_MS,
        confirmations: CONFIRMATIONS,
      });
    });

    afterAll(async () => {
      await api.close();
    });

    /** Delivers its webhooks; `endpointFor` makes a receiver and an endpoint of a user at it. */
    const { endpointFor } = deliveringWebhooks(
      () => ({ agent: request(api.app), knex: api.db.knex, webhooks: api.webhooks }),
      '/cert/v2',
    );

    const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

    const read = async (location: string, token: string): Promise<Certificate> => {
      const response = await request(api.app).get(location).set(auth(token));
      expect(response.status).toBe(200);
      return certificateSchema.parse(response.body.data);
    };

    /** Polls the Location as a client would; the certificate as it is after 30 s otherwise. */
    const untilAnchored = async (location: string, token: string): Promise<Certificate> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const certificate = await read(location, token);
        if (certificate.status !== 'pending' || Date.now() > deadline) return certificate;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    it('when certificates are created with respond-async, then 202 pending, anchored after 2 confirmations, and trustpoint.anchored delivered signed after failed attempts', async () => {
      // Arrange: an endpoint at a receiver that fails its first two attempts.
      const { token } = await api.user();
      const { receiver } = await endpointFor(token, { events: ['trustpoint.anchored'] }, 2);

      // Act: three certificates at once, as concurrent clients send them.
      const accepted = await Promise.all(
        [1, 2, 3].map((n) =>
          request(api.app)
            .post(CREATE)
            .set(auth(token))
            .set('Prefer', 'respond-async')
            .send({
              name: `Real network ${String(n)}`,
              description: '',
              content: { n, r: Math.random() },
            }),
        ),
      );

      // Assert: acknowledged pending, each at its Location.
      for (const response of accepted) {
        expect(response.status).toBe(202);
        expect(response.headers['preference-applied']).toBe('respond-async');
        const certificate = certificateSchema.parse(response.body.data);
        expect(certificate.status).toBe('pending');
        expect(response.headers.location).toBe(
          `/cert/v2/certificates/certID/${encodeURIComponent(certificate.certID)}`,
        );
      }
      // Anchored later, never before the network's confirmations.
      const anchored = await Promise.all(
        accepted.map((response) => untilAnchored(String(response.headers.location), token)),
      );
      for (const certificate of anchored) {
        expect(certificate.status).toBe('anchored');
        const [trustpoint] = certificate.metadata;
        expect(trustpoint).toMatchObject({
          status: 'anchored',
          smartContract: api.network.trustPointRegistry,
          transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) as unknown,
        });
        expect(
          await confirmationsOf(api.chain.url, trustpoint?.transactionHash ?? ''),
        ).toBeGreaterThanOrEqual(CONFIRMATIONS);
      }
      // One verified trustpoint.anchored per certificate, after the receiver's two failures.
      for (const certificate of anchored) {
        const delivered = await receiver.waitFor(
          (w) => w.status === 204 && w.verified?.data.certID === certificate.certID,
          20_000,
        );
        expect(delivered.verified).toMatchObject({
          type: 'trustpoint.anchored',
          data: {
            certID: certificate.certID,
            trustpoint: {
              type: 'Evidence',
              networkId: 31337,
              trustPointHash: certificate.data.hash,
              smartContract: api.network.trustPointRegistry,
              transactionHash: certificate.metadata[0]?.transactionHash,
            },
          },
        });
      }
      expect(receiver.received.slice(0, 2).map((w) => w.status)).toEqual([500, 500]);
      expect(receiver.received.every((w) => w.verified !== undefined)).toBe(true);
    });
  },
);
