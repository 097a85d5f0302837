import {
  chainWriterProvider,
  deployTrustpoint,
  HARDHAT_DEV_KEY,
  TrustPointRegistry__factory,
} from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { trustPointKey } from '@trustpoint/domain';
import { NonceManager, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

describe.each(testBackends())('GET /trustpoints/{type}/{id} on %s', (backend) => {
  let api: CertApiFixture;

  /** How far the service's clock runs behind this machine's (and the chain's). */
  let clockBehindMs = 0;

  beforeAll(async () => {
    api = await startCertApi(backend, { now: () => Date.now() - clockBehindMs });
  });

  afterAll(async () => {
    await api.close();
  });

  const verify = (path: string, token?: string) => {
    const call = request(api.app).get(`/cert/v2/trustpoints/${path}`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  it('when a certificate is anchored, then its trustpoint matches the chain', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token);

    const response = await verify(`certID/${created.certID}`, owner.token);

    expect(response.status).toBe(200);
    expect(response.body.message).toBe('Certificate verified');
    expect(response.body.data).toMatchObject({
      certID: created.certID,
      verified: true,
      revoked: false,
    });
    expect(response.body.data.trustpoints).toHaveLength(1);
    expect(response.body.data.trustpoints[0]).toMatchObject({
      type: 'Evidence',
      status: 'match',
      hashMatches: true,
      typeMatches: true,
      onChain: { hash: created.data.hash, type: 'Evidence' },
      explorer: null,
    });
  });

  it('when a certificate is revoked, then both trustpoints match and it reads as revoked', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true });
    await request(api.app)
      .patch(`/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);

    const response = await verify(`certID/${created.certID}`);

    // Every trustpoint matches; the verdict, as every verifier gives it, is revoked.
    expect(response.body.data.verified).toBe(false);
    expect(response.body.data.verdict).toBe('revoked');
    expect(response.body.data.revoked).toBe(true);
    expect(
      response.body.data.trustpoints.map((t: { type: string; status: string }) => [
        t.type,
        t.status,
      ]),
    ).toEqual([
      ['Evidence', 'match'],
      ['Revocation', 'match'],
    ]);
  });

  it('when the stored hash or timestamp disagrees with the chain, then it is a mismatch or not found', async () => {
    const owner = await api.user();
    const tampered = await api.certify(owner.token);
    const moved = await api.certify(owner.token);
    const certificates = api.db.knex('certificates');
    const ids = await certificates
      .whereIn('cert_id', [tampered.certID, moved.certID])
      .select<{ id: string; cert_id: string }[]>('id', 'cert_id');
    const idOf = (certId: string) => ids.find((row) => row.cert_id === certId)?.id;
    await api.db
      .knex('trustpoints')
      .where({ certificate_id: idOf(tampered.certID) })
      .update({ hash: 'f'.repeat(64) });
    await api.db
      .knex('trustpoints')
      .where({ certificate_id: idOf(moved.certID) })
      .increment('timestamp', 1);

    const mismatch = await verify(`certID/${tampered.certID}`, owner.token);
    const notFound = await verify(`certID/${moved.certID}`, owner.token);

    expect(mismatch.body.data.verified).toBe(false);
    expect(mismatch.body.message).toBe('Certificate not verified');
    expect(mismatch.body.data.trustpoints[0]).toMatchObject({
      status: 'mismatch',
      hashMatches: false,
      typeMatches: true,
    });
    expect(notFound.body.data.trustpoints[0]).toMatchObject({ status: 'notFound', onChain: null });
  });

  it('when a trustpoint was anchored on the registry an upgraded deployment named before, then it is verified from that registry', async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token);
    // Registries of the earlier generation (one slot a record) on the same chain, holding this
    // certificate's trustpoint at a timestamp the current batch registry has never seen.
    const provider = chainWriterProvider(api.network.rpcUrl, api.network.rpcHeaders ?? {});
    const writer = new NonceManager(new Wallet(HARDHAT_DEV_KEY, provider));
    const earlier = await deployTrustpoint(writer, { registries: 'slots' });
    const [row] = await api.db
      .knex('trustpoints as t')
      .join('certificates as c', 'c.id', 't.certificate_id')
      .where('c.cert_id', created.certID)
      .select<{ id: number; timestamp: number; hash: string }[]>('t.id', 't.timestamp', 't.hash');
    if (!row) throw new Error('one trustpoint');
    const timestamp = row.timestamp + 1;
    const registry = TrustPointRegistry__factory.connect(earlier.trustPointRegistry, writer);
    const written = await (
      await registry.registerTrustPoint(
        trustPointKey(created.certID, timestamp),
        `0x${row.hash}`,
        0,
      )
    ).wait();
    provider.destroy();
    await api.db.knex('trustpoints').where({ id: row.id }).update({
      timestamp,
      smart_contract: earlier.trustPointRegistry,
      transaction_hash: written?.hash,
    });

    const response = await verify(`certID/${created.certID}`, owner.token);

    expect(response.body.data.verified).toBe(true);
    expect(response.body.data.trustpoints[0]).toMatchObject({
      status: 'match',
      smartContract: earlier.trustPointRegistry,
      onChain: { hash: row.hash, type: 'Evidence' },
    });
  });

  it('when the certificate is private and the reader is not its issuer, then it is not found', async () => {
    const owner = await api.user();
    const other = await api.user();
    const created = await api.certify(owner.token);

    expect((await verify(`certID/${created.certID}`, other.token)).status).toBe(404);
    expect((await verify(`certID/${created.certID}`)).status).toBe(404);
  });

  it("when the chain's time has passed the expiry and the service's clock has not, then it reads as expired, as every verifier judges", async () => {
    const owner = await api.user();
    // The service's clock two hours behind the chain's (this machine's): an expiry an hour ago
    // is still ahead of it.
    clockBehindMs = 2 * 60 * 60_000;
    try {
      const expires = Date.now() - 60 * 60_000;
      const created = await api.certify(owner.token, { expires });

      const response = await verify(`certID/${created.certID}`, owner.token);

      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({ verified: false, verdict: 'expired' });
      expect(response.body.data.expiry).toMatchObject({ expires, expired: true });
      expect(response.body.data.expiry.judgedAt).toBe(response.body.data.expiry.chainTime);
    } finally {
      clockBehindMs = 0;
    }
  });
});
