import { AnchorEngine, NetworkRegistry } from '@trustpoint/chain';
import { testBackends } from '@trustpoint/test-database';
import { verifyCertificate, type Trust } from '@trustpoint/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

/** What a stranger trusts: the service's registries and status registry on this chain. */
function trustOf(api: CertApiFixture, statusRegistry: string): Trust {
  return {
    networks: [
      {
        networkId: api.network.networkId,
        chainId: api.network.chainId,
        registries: [
          { kind: 'trustPointRegistry', address: api.network.trustPointRegistry },
          { kind: 'statusRegistry', address: statusRegistry },
        ],
        pinnedBy: 'you',
        // The embedded chain's registries are held by its development accounts.
        local: true,
      },
    ],
  };
}

describe.each(testBackends())(
  'Revocation found from the certificate as issued on %s',
  (backend) => {
    describe('a service with a status registry', () => {
      let api: CertApiFixture;

      beforeAll(async () => {
        api = await startCertApi(backend);
      }, 60_000);

      afterAll(async () => {
        await api.close();
      });

      const revoke = (certId: string, token: string) =>
        request(api.app)
          .patch(`/cert/v2/certificates/certID/${certId}/revoke?networkId=31337`)
          .set('Authorization', `Bearer ${token}`);

      it('when a holder saved the JSON at issuance and the issuer revokes it, then every verifier finds it revoked from that copy, with the chain time', async () => {
        const owner = await api.user();
        const saved = await api.certify(owner.token);
        const before = await verifyCertificate({
          certificate: saved,
          rpc: { '31337': [api.chain.url] },
          trust: trustOf(api, api.statusRegistry),
        });

        const revoked = await revoke(saved.certID, owner.token);
        const after = await verifyCertificate({
          certificate: saved,
          rpc: { '31337': [api.chain.url] },
          trust: trustOf(api, api.statusRegistry),
        });
        const posted = await request(api.app).post('/cert/v2/trustpoints/verification').send(saved);
        const stored = await request(api.app)
          .get(`/cert/v2/trustpoints/certID/${saved.certID}`)
          .set('Authorization', `Bearer ${owner.token}`);

        expect(revoked.status).toBe(200);
        expect(before.verdict).toBe('verified');
        expect(before.status).toEqual([expect.objectContaining({ outcome: 'notRevoked' })]);
        expect(after).toMatchObject({ verdict: 'revoked', verified: false, revoked: true });
        const revocationTime = after.revocation?.recordedAt ?? 0;
        expect(revocationTime % 1000).toBe(0);
        expect(revocationTime).toBeGreaterThanOrEqual(
          Math.floor(before.trustpoints[0]?.chainTime?.timestamp ?? Infinity),
        );
        // The service's own verification, of the posted copy and of the stored record, agrees.
        expect(posted.status).toBe(200);
        expect(posted.body.data).toMatchObject({
          verdict: 'revoked',
          verified: false,
          revoked: true,
        });
        expect(posted.body.data.revocation.recordedAt).toBe(revocationTime);
        expect(stored.body.data).toMatchObject({
          verdict: 'revoked',
          verified: false,
          revoked: true,
        });
        expect(stored.body.data.status).toEqual([
          expect.objectContaining({ outcome: 'revoked', statusRegistry: api.statusRegistry }),
        ]);
        // No node URL in the service's answers: it may hold an API key.
        expect(JSON.stringify(posted.body)).not.toContain(api.chain.url);
        expect(JSON.stringify(stored.body)).not.toContain(api.chain.url);
      }, 60_000);

      it('when a verifier trusts no status registry for the network, then the revocation is not checked and it is never verified', async () => {
        const owner = await api.user();
        const saved = await api.certify(owner.token);
        const trust = trustOf(api, api.statusRegistry);
        const noStatus: Trust = {
          networks: trust.networks.map((network) => ({
            ...network,
            registries: network.registries.filter((registry) => registry.kind !== 'statusRegistry'),
          })),
        };

        const result = await verifyCertificate({
          certificate: saved,
          rpc: { '31337': [api.chain.url] },
          trust: noStatus,
        });

        expect(result).toMatchObject({ verdict: 'revocationUnchecked', verified: false });
      });

      it('when the posted JSON is not a certificate, holds unstorable text or nests too deeply, then 400 in the error body and nothing else', async () => {
        const answers = await Promise.all(
          [{}, { certID: 7 }, [], 'text', { certID: 'x', data: {}, metadata: [] }].map((body) =>
            request(api.app)
              .post('/cert/v2/trustpoints/verification')
              .set('Content-Type', 'application/json')
              .send(JSON.stringify(body)),
          ),
        );

        const deep = `{"certID":"x","data":{"content":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}}`;
        const odd = await Promise.all(
          [
            deep,
            '{"certID":"did:trustpoint:certid:a\\u0000b","data":{},"metadata":[]}',
            '{"\\ud800":1}',
          ].map((body) =>
            request(api.app)
              .post('/cert/v2/trustpoints/verification')
              .set('Content-Type', 'application/json')
              .send(body),
          ),
        );

        for (const answer of [...answers, ...odd]) {
          expect(answer.status).toBe(400);
          expect(answer.body).toMatchObject({ statusCode: 400, type: expect.any(String) });
        }
      });

      it('when a revoked copy is changed, then it is a mismatch, whatever its revocation', async () => {
        const owner = await api.user();
        const saved = await api.certify(owner.token);
        const changed = {
          ...saved,
          data: { ...(saved as unknown as { data: object }).data, content: { forged: true } },
        };

        const posted = await request(api.app)
          .post('/cert/v2/trustpoints/verification')
          .send(changed);

        expect(posted.body.data).toMatchObject({ verdict: 'mismatch', verified: false });
      });
    });

    describe('a service with two networks', () => {
      let api: CertApiFixture;

      beforeAll(async () => {
        api = await startCertApi(backend, { secondNetwork: true });
      }, 90_000);

      afterAll(async () => {
        await api.close();
      });

      it('when a certificate anchored on one network is revoked on another, then its status reaches the network holding its Evidence, and a copy saved at issuance is found revoked there', async () => {
        const owner = await api.user({ networks: ['31337', '1337'] });
        const saved = await api.certify(owner.token);
        const second = api.secondNetwork;
        if (second === undefined) throw new Error('a second network');

        const revoked = await request(api.app)
          .patch(`/cert/v2/certificates/certID/${saved.certID}/revoke?networkId=1337`)
          .set('Authorization', `Bearer ${owner.token}`);
        const result = await verifyCertificate({
          certificate: saved,
          rpc: { '31337': [api.chain.url] },
          trust: trustOf(api, api.statusRegistry),
        });
        const statuses = await api.db
          .knex('anchor_records')
          .where({ kind: 'status' })
          .select<{ network_id: string; status: string }[]>('network_id', 'status');

        expect(revoked.status).toBe(200);
        expect(
          (revoked.body.data.metadata as { type: string; networkId: number }[]).map((item) => [
            item.type,
            item.networkId,
          ]),
        ).toEqual([
          ['Evidence', 31337],
          ['Revocation', 1337],
        ]);
        // Only the network holding the Evidence: the one a verifier of the copy asks.
        expect(statuses).toEqual([{ network_id: '31337', status: 'anchored' }]);
        expect(result).toMatchObject({ verdict: 'revoked', revoked: true });
        expect(result.revocation?.networkId).toBe(31337);
      }, 60_000);
    });

    describe('a certificate revoked before its network wrote statuses', () => {
      let api: CertApiFixture;

      beforeAll(async () => {
        api = await startCertApi(backend, { withoutStatusRegistry: true });
      }, 60_000);

      afterAll(async () => {
        await api.close();
      });

      it('when the engine starts with the status registry configured, then it backfills the status once, and the saved copy is found revoked', async () => {
        const owner = await api.user();
        const saved = await api.certify(owner.token);
        const revoked = await request(api.app)
          .patch(`/cert/v2/certificates/certID/${saved.certID}/revoke?networkId=31337`)
          .set('Authorization', `Bearer ${owner.token}`);
        const verify = () =>
          verifyCertificate({
            certificate: saved,
            rpc: { '31337': [api.chain.url] },
            trust: trustOf(api, api.statusRegistry),
          });
        const beforeUpgrade = await verify();

        // The upgrade: the network now names its status registry; the anchoring engine backfills.
        const upgraded = { ...api.network, statusRegistry: api.statusRegistry };
        const engine = new AnchorEngine(api.db.knex, new NetworkRegistry([upgraded]));
        engine.start();
        const deadline = Date.now() + 30_000;
        let statuses: { status: string }[] = [];
        while (Date.now() < deadline) {
          statuses = await api.db
            .knex('anchor_records')
            .where({ kind: 'status' })
            .select<{ status: string }[]>('status');
          if (statuses.length > 0 && statuses.every((row) => row.status === 'anchored')) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const progress = await api.db
          .knex('status_backfills')
          .select<{ network_id: string; queued: number | string }[]>('network_id', 'queued');
        // A second start finds nothing more to do: the backfill is idempotent.
        await engine.stop();
        const again = new AnchorEngine(api.db.knex, new NetworkRegistry([upgraded]));
        again.start();
        await again.stop();
        const afterUpgrade = await verify();

        expect(revoked.status).toBe(200);
        expect(beforeUpgrade.verdict).toBe('verified');
        expect(statuses).toEqual([{ status: 'anchored' }]);
        expect(progress.map((row) => [row.network_id, Number(row.queued)])).toEqual([['31337', 1]]);
        expect(afterUpgrade).toMatchObject({ verdict: 'revoked', revoked: true });
      }, 60_000);
    });
  },
);
