import { freePort } from '@trustpoint/contracts';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import { doubleHashOf } from '@trustpoint/test-kit/fixtures';
import { Interface } from 'ethers';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateSigner, generateSigningKey } from '../src/server.js';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { storedCertificate } from './support/stored-certificate.js';

interface MetadataItem {
  type: string;
  smartContract: string;
  transactionHash: string;
  trustPointHash: string;
  timestamp: number;
  signature?: string;
}

interface CertificateBody {
  certID: string;
  data: { hash: string; type: string; issuer: string; issuedOn: number };
  metadata: MetadataItem[];
}

// Written out here rather than taken from the project's code: what an outside verifier would use.
const registry = new Interface([
  'function getTrustPoint(string certId, uint256 timestamp) view returns (string hash, uint8 trustPointType)',
]);

async function trustpointCount(api: CertApiFixture, certId: string): Promise<number> {
  const rows = await api.db
    .knex('trustpoints')
    .join('certificates', 'certificates.id', 'trustpoints.certificate_id')
    .where('certificates.cert_id', certId)
    .count<{ count: number | string }[]>('* as count');
  return Number(rows[0]?.count);
}

describe.each(testBackends())('qualified signatures on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const sign = (path: string, token: string, networkId: string | null = '31337') =>
    request(api.app)
      .post(
        `/cert/v2/certificates/${path}/signature${networkId === null ? '' : `?networkId=${networkId}`}`,
      )
      .set('Authorization', `Bearer ${token}`);

  const jwks = async (): Promise<JSONWebKeySet> => {
    const response = await request(api.app).get('/cert/v2/.well-known/jwks.json');
    expect(response.status).toBe(200);
    return response.body as JSONWebKeySet;
  };

  /** Verifies the JWS as anyone would: with the published key set and a JOSE library. */
  const verifiedPayload = async (jws: string): Promise<unknown> => {
    const { payload } = await compactVerify(jws, createLocalJWKSet(await jwks()));
    return JSON.parse(new TextDecoder().decode(payload)) as unknown;
  };

  const onChain = async (item: MetadataItem, certId: string) => {
    const rpc = await fetch(api.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [
          {
            to: item.smartContract,
            data: registry.encodeFunctionData('getTrustPoint', [certId, item.timestamp]),
          },
          'latest',
        ],
      }),
    });
    const { result } = (await rpc.json()) as { result: string };
    const [hash, type] = registry.decodeFunctionResult('getTrustPoint', result);
    return { hash: hash as string, type: Number(type) };
  };

  it('when the key set is fetched without a token, then it holds one public signing key', async () => {
    const response = await request(api.app).get('/cert/v2/.well-known/jwks.json');

    expect(response.status).toBe(200);
    const keys = (response.body as JSONWebKeySet).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('when a qualified issuer signs, then 201 with a Signature trustpoint whose JWS verifies and is on chain as type 2', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    const response = await sign(`hash/${created.data.hash}`, owner.token);

    expect(response.status).toBe(201);
    expect(response.body.message).toBe('Certificate signed successfully');
    const body = response.body.data as CertificateBody;
    expect(body.metadata.map((item) => item.type)).toEqual(['Evidence', 'Signature']);
    const [evidence, signature] = body.metadata;
    if (!evidence || !signature?.signature) throw new Error('two trustpoints, one signed');
    expect(signature.timestamp).toBeGreaterThan(evidence.timestamp);
    expect(decodeProtectedHeader(signature.signature)).toEqual({
      alg: 'ES256',
      kid: (await jwks()).keys[0]?.kid,
    });
    expect(await verifiedPayload(signature.signature)).toEqual({
      certID: created.certID,
      hash: created.data.hash,
      issuer: body.data.issuer,
      issuedOn: body.data.issuedOn,
      type: 'content',
      signedAt: signature.timestamp,
    });
    expect(signature.trustPointHash).toBe(doubleHashOf(signature.signature));
    expect(await onChain(signature, created.certID)).toEqual({
      hash: signature.trustPointHash,
      type: 2,
    });
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(Number(creditsBefore) - 1);
    const read = await request(api.app)
      .get(`/cert/v2/certificates/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(read.body.data).toEqual(body);
  });

  it('when a certificate is created, signed and revoked, then the Evidence and the signature name their payer for a refund and the revocation, free, names none', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await sign(`certID/${created.certID}`, owner.token);
    const revoked = await request(api.app)
      .patch(`/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);
    expect(revoked.status).toBe(200);

    // A record that ends failed gives its credit back to `paid_by` (see @trustpoint/chain).
    const payers = await api.db
      .knex('trustpoints')
      .join('anchor_records', 'anchor_records.id', 'trustpoints.anchor_record_id')
      .join('certificates', 'certificates.id', 'trustpoints.certificate_id')
      .where('certificates.cert_id', created.certID)
      .orderBy('trustpoints.timestamp')
      .select<{ type: number; paid_by: string | null }[]>(
        'trustpoints.type',
        'anchor_records.paid_by',
      );
    expect(payers).toEqual([
      { type: 0, paid_by: owner.id },
      { type: 2, paid_by: owner.id },
      { type: 1, paid_by: null },
    ]);
  });

  it('when a signed certificate is verified, then its Signature trustpoint matches on chain and its JWS is valid', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await sign(`certID/${created.certID}`, owner.token);

    const response = await request(api.app)
      .get(`/cert/v2/trustpoints/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);

    expect(response.status).toBe(200);
    expect(response.body.data.verified).toBe(true);
    expect(response.body.data.trustpoints[1]).toMatchObject({
      type: 'Signature',
      onChain: { type: 'Signature' },
      hashMatches: true,
      typeMatches: true,
      signatureValid: true,
      status: 'match',
    });
  });

  it('when the signing key is rotated with the old key retired, then earlier signatures stay valid and the key set lists both', async () => {
    // Arrange: signed under the first key, whose public half the operator copies from the JWKS.
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await sign(`certID/${created.certID}`, owner.token);
    const published = await jwks();
    const rotatedSigner = await createCertificateSigner(generateSigningKey(), {
      retired: published.keys,
    });
    const rotated = api.appWith(rotatedSigner);

    // Act
    const verification = await request(rotated)
      .get(`/cert/v2/trustpoints/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);
    const keySet = await request(rotated).get('/cert/v2/.well-known/jwks.json');

    // Assert
    expect(verification.status).toBe(200);
    expect(verification.body.data.verified).toBe(true);
    expect(verification.body.data.trustpoints[1]).toMatchObject({
      type: 'Signature',
      signatureValid: true,
      status: 'match',
    });
    const kids = (keySet.body as JSONWebKeySet).keys.map((key) => key.kid);
    expect(kids).toEqual([rotatedSigner.kid, api.signer.kid]);
  });

  it('when the signing key is replaced without retiring the old one, then earlier signatures are reported invalid', async () => {
    // Arrange
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await sign(`certID/${created.certID}`, owner.token);
    const replacedSigner = await createCertificateSigner(generateSigningKey());
    const replaced = api.appWith(replacedSigner);

    // Act
    const verification = await request(replaced)
      .get(`/cert/v2/trustpoints/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);
    const keySet = await request(replaced).get('/cert/v2/.well-known/jwks.json');

    // Assert
    expect(verification.body.data.verified).toBe(false);
    expect(verification.body.data.trustpoints[1]).toMatchObject({
      type: 'Signature',
      hashMatches: true,
      signatureValid: false,
      status: 'mismatch',
    });
    expect((keySet.body as JSONWebKeySet).keys.map((key) => key.kid)).toEqual([replacedSigner.kid]);
  });

  it('when the stored JWS is altered, then verification reports the Signature trustpoint as a mismatch', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await sign(`certID/${created.certID}`, owner.token);
    const signatureRow = () =>
      api.db
        .knex('trustpoints')
        .where({ type: 2 })
        .whereIn(
          'certificate_id',
          api.db.knex('certificates').select('id').where({ cert_id: created.certID }),
        );
    const stored = await signatureRow().first<{ signature: string }>('signature');
    const [header, payload] = stored.signature.split('.');
    // Another valid-looking JWS (a different signature) whose double hash is not the one on chain.
    await signatureRow().update({
      signature: `${String(header)}.${String(payload)}.${'A'.repeat(86)}`,
    });

    const response = await request(api.app)
      .get(`/cert/v2/trustpoints/certID/${created.certID}`)
      .set('Authorization', `Bearer ${owner.token}`);

    expect(response.body.data.verified).toBe(false);
    expect(response.body.data.trustpoints[1]).toMatchObject({
      hashMatches: true,
      signatureValid: false,
      status: 'mismatch',
    });
  });

  it('when the user is not qualified, then 403 and no credit is spent and no trustpoint added', async () => {
    const owner = await api.user({ qualified: false });
    const created = await api.certify(owner.token);
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    const response = await sign(`certID/${created.certID}`, owner.token);

    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      statusCode: 403,
      type: 'Forbidden Error',
      message: 'User is not qualified, please try again with a qualified user',
    });
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(creditsBefore);
    expect(await trustpointCount(api, created.certID)).toBe(1);
  });

  it('when the issuer has no credit left, then 429 and no trustpoint is added', async () => {
    const owner = await api.user({ qualified: true, credits: 1 });
    const created = await api.certify(owner.token);

    const response = await sign(`certID/${created.certID}`, owner.token);

    expect(response.status).toBe(429);
    expect(response.body.type).toBe('Out of Credits Error');
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(0);
    expect(await trustpointCount(api, created.certID)).toBe(1);
  });

  it('when the network is missing, unknown or outside the plan, then 400, 400 and 403 and nothing changes', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    const restricted = await api.user({ networks: [] });
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    const missing = await sign(`certID/${created.certID}`, owner.token, null);
    const unknown = await sign(`certID/${created.certID}`, owner.token, '4242');
    await api.db
      .knex('users')
      .where({ id: owner.id })
      .update({ plan_id: `plan-${restricted.id}` });
    const outside = await sign(`certID/${created.certID}`, owner.token);

    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('query.networkId');
    expect(unknown.status).toBe(400);
    expect(outside.status).toBe(403);
    expect(outside.body.type).toBe('Forbidden Error');
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(creditsBefore);
    expect(await trustpointCount(api, created.certID)).toBe(1);
  });

  it("when a qualified user signs another user's certificate, then 404 by any lookup", async () => {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true, externalId: 'someone-else' });
    const stranger = await api.user({ qualified: true });

    const byCertId = await sign(`certID/${created.certID}`, stranger.token);
    const byHash = await sign(`hash/${created.data.hash}`, stranger.token);
    const byExternalId = await sign('externalId/someone-else', stranger.token);
    const anonymous = await request(api.app).post(
      `/cert/v2/certificates/certID/${created.certID}/signature?networkId=31337`,
    );

    expect([byCertId.status, byHash.status, byExternalId.status]).toEqual([404, 404, 404]);
    expect(anonymous.status).toBe(401);
    expect(await trustpointCount(api, created.certID)).toBe(1);
  });

  it('when the certificate is revoked, then 400 and nothing changes', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    await request(api.app)
      .patch(`/cert/v2/certificates/certID/${created.certID}/revoke?networkId=31337`)
      .set('Authorization', `Bearer ${owner.token}`);
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    const response = await sign(`certID/${created.certID}`, owner.token);

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'path.id', error: 'A revoked certificate cannot be signed' },
    ]);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(creditsBefore);
    expect(await trustpointCount(api, created.certID)).toBe(2);
  });

  it('when a certificate is signed again, then 200 with the first signature and no second credit', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    const first = await sign(`certID/${created.certID}`, owner.token);
    const creditsAfterFirst = await findCreditBalance(api.db.knex, owner.id);

    const second = await sign(`certID/${created.certID}`, owner.token);

    expect(second.status).toBe(200);
    expect(second.body.message).toBe('Certificate already signed');
    expect(second.body.data).toEqual(first.body.data);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(creditsAfterFirst);
  });

  it('when two signing requests race, then one signature is made and one credit spent', async () => {
    const owner = await api.user({ qualified: true });
    const created = await api.certify(owner.token);
    const creditsBefore = await findCreditBalance(api.db.knex, owner.id);

    const responses = await Promise.all([
      sign(`certID/${created.certID}`, owner.token),
      sign(`certID/${created.certID}`, owner.token),
    ]);

    expect(responses.map((response) => response.status).sort()).toEqual([200, 201]);
    expect(responses[0].body.data).toEqual(responses[1].body.data);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(Number(creditsBefore) - 1);
    expect(await trustpointCount(api, created.certID)).toBe(2);
  });

  it('when a qualified user creates with qualified=true, then Evidence and Signature are anchored together', async () => {
    const owner = await api.user({ qualified: true, credits: 5 });

    const response = await request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337&qualified=true')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'Signed', description: '', content: { signed: Math.random() } });

    expect(response.status).toBe(201);
    const body = response.body.data as CertificateBody;
    const [evidence, signature] = body.metadata;
    if (!evidence || !signature?.signature) throw new Error('two trustpoints, one signed');
    expect(body.metadata.map((item) => item.type)).toEqual(['Evidence', 'Signature']);
    expect(evidence.timestamp).toBe(body.data.issuedOn);
    expect(signature.timestamp).toBe(body.data.issuedOn + 1);
    expect(signature.transactionHash).toBe(evidence.transactionHash);
    expect(await verifiedPayload(signature.signature)).toMatchObject({
      certID: body.certID,
      hash: body.data.hash,
      signedAt: body.data.issuedOn + 1,
    });
    expect(signature.trustPointHash).toBe(doubleHashOf(signature.signature));
    expect(await onChain(signature, body.certID)).toEqual({
      hash: signature.trustPointHash,
      type: 2,
    });
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(4);
  });

  it('when a user who is not qualified creates with qualified=true, then 403 with no certificate and no credit spent', async () => {
    const owner = await api.user({ qualified: false, credits: 5 });

    const response = await request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337&qualified=true')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'Signed', description: '', content: { signed: Math.random() } });

    expect(response.status).toBe(403);
    expect(response.body.message).toBe(
      'User is not qualified, please try again with a qualified user',
    );
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(5);
    const stored = await api.db
      .knex('certificates')
      .where({ user_id: owner.id })
      .count<{ count: number | string }[]>('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });
});

describe.each(testBackends())('qualified signatures when the chain is down on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend, {
      anchorTimeoutMs: 1_500,
      rpcUrl: `http://127.0.0.1:${String(await freePort())}`,
    });
  });

  afterAll(async () => {
    await api.close();
  });

  it('when signing cannot be mined in time, then 503, the signature stands and a retry spends no second credit', async () => {
    const owner = await api.user({ qualified: true, credits: 3 });
    const created = await storedCertificate(api.db.knex, owner.id);
    const signPath = `/cert/v2/certificates/certID/${created.certID}/signature?networkId=31337`;

    const first = await request(api.app)
      .post(signPath)
      .set('Authorization', `Bearer ${owner.token}`);
    const retry = await request(api.app)
      .post(signPath)
      .set('Authorization', `Bearer ${owner.token}`);

    expect([first.status, retry.status]).toEqual([503, 503]);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    const signatures = await api.db
      .knex('trustpoints')
      .join('anchor_records', 'anchor_records.id', 'trustpoints.anchor_record_id')
      .join('certificates', 'certificates.id', 'trustpoints.certificate_id')
      .where({ 'trustpoints.type': 2, 'certificates.cert_id': created.certID })
      .select('trustpoints.signature', 'anchor_records.status');
    expect(signatures).toHaveLength(1);
    expect(signatures[0]?.status).toBe('queued');
    expect(String(signatures[0]?.signature).split('.')).toHaveLength(3);
  });

  it('when a qualified creation cannot be mined in time, then 503 and both trustpoints are withdrawn with the credit', async () => {
    const owner = await api.user({ qualified: true, credits: 2 });

    const response = await request(api.app)
      .post('/cert/v2/certificates?type=content&networkId=31337&qualified=true')
      .set('Authorization', `Bearer ${owner.token}`)
      .send({ name: 'Later', description: '', content: { later: Math.random() } });

    expect(response.status).toBe(503);
    expect(await findCreditBalance(api.db.knex, owner.id)).toBe(2);
    const stored = await api.db
      .knex('certificates')
      .where({ user_id: owner.id })
      .count<{ count: number | string }[]>('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });
});
