import { randomUUID } from 'node:crypto';
import { findCreditBalance } from '@trustpoint/db';
import { testBackends } from '@trustpoint/test-database';
import {
  assetCertificateHash,
  certificateSchema,
  contentCertificateHash,
  decodeGetTrustPointResponse,
  getTrustPointRequest,
  readDisclosableCertificate,
} from '@trustpoint/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, tokenFor, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates';

describe.each(testBackends())('POST /certificates (JSON kinds) on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend);
  });

  afterAll(async () => {
    await api.close();
  });

  const post = (token: string | undefined, query: string, body: unknown) => {
    const call = request(api.app)
      .post(`${CREATE}?${query}`)
      .send(body as object);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  it('when content is certified, then 201 returns the certificate, anchored, and one eth_call verifies it', async () => {
    const { id, token } = await api.user();
    const content = { invoice: 'INV-42', total: 1250.5, lines: [{ sku: 'A', qty: 2 }] };

    const response = await post(token, 'type=content&networkId=31337', {
      name: 'Invoice 42',
      description: 'March',
      content,
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      statusCode: 201,
      message: 'Certificate created successfully',
    });
    const certificate = certificateSchema.parse(response.body.data);
    // Version 2: the hash covers every shown field, recomputed from the certificate alone.
    expect(certificate.data.hashVersion).toBe(2);
    expect(readDisclosableCertificate(certificate)).toMatchObject({
      hash: certificate.data.hash,
      content,
      withheld: [],
    });
    expect(certificate.data.hash).not.toBe(contentCertificateHash(content));
    expect(certificate.data.issuer).toBe(`did:user:${id}`);
    expect(certificate.metadata).toHaveLength(1);
    const [trustpoint] = certificate.metadata;
    expect(trustpoint).toMatchObject({
      type: 'Evidence',
      networkId: 31337,
      smartContract: api.network.trustPointRegistry,
      trustPointHash: certificate.data.hash,
    });
    // An outside client: one raw JSON-RPC call, nothing else.
    const rpc = await fetch(api.chain.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        getTrustPointRequest({
          smartContract: trustpoint?.smartContract ?? '',
          certId: certificate.certID,
          timestampMs: trustpoint?.timestamp ?? 0,
        }),
      ),
    });
    expect(decodeGetTrustPointResponse(await rpc.json())).toEqual({
      found: true,
      hash: certificate.data.hash,
      type: 'Evidence',
    });
  });

  it('when a certificate is created, then the 201 body is exactly what a later GET returns', async () => {
    const { token } = await api.user({ qualified: true });
    const read = (certId: string) =>
      request(api.app)
        .get(`/cert/v2/certificates/certID/${certId}`)
        .set('Authorization', `Bearer ${token}`);

    // Every optional field set, and a qualified one with its Signature trustpoint.
    const full = await post(token, 'type=content&networkId=31337', {
      name: 'Invoice 43',
      description: 'April',
      content: { invoice: 'INV-43', lines: [{ sku: 'B', qty: 1 }] },
      expires: 4_102_444_800_000,
      public: true,
      certificatePin: '1234',
      externalId: 'inv-43',
    });
    const signed = await post(token, 'type=content&networkId=31337&qualified=true', {
      name: 'Invoice 44',
      description: 'May',
      content: { invoice: 'INV-44' },
    });

    expect(full.status).toBe(201);
    expect(signed.status).toBe(201);
    expect(signed.body.data.metadata).toHaveLength(2);
    for (const created of [full, signed]) {
      const later = await read(created.body.data.certID);
      expect(later.status).toBe(200);
      expect(created.body.data).toEqual(later.body.data);
    }
  });

  it('when an asset is certified, then its hash covers assetId, from, to and content as shown', async () => {
    const { token } = await api.user();
    const body = {
      name: 'Pallet 7',
      description: 'Shipment',
      assetId: 'pallet-7',
      from: 'Madrid',
      to: 1_767_225_600_000,
      content: { weightKg: 480 },
    };

    const response = await post(token, 'type=asset&networkId=31337', body);

    expect(response.status).toBe(201);
    const expected = {
      assetId: 'pallet-7',
      from: 'Madrid',
      to: 1_767_225_600_000,
      content: { weightKg: 480 },
    };
    expect(response.body.data.data.content).toEqual(expected);
    expect(readDisclosableCertificate(response.body.data).hash).toBe(response.body.data.data.hash);
    // The unsalted digest of version 1's asset rule still finds it.
    const found = await request(api.app)
      .get(`/cert/v2/certificates/hash/${assetCertificateHash(expected)}`)
      .set('Authorization', `Bearer ${token}`);
    expect(found.body.data.certID).toBe(response.body.data.certID);
  });

  it('when content is certified, then it is found by the unsalted digest of its content and by data.hash, and the same content again is 409', async () => {
    // Arrange
    const { token } = await api.user({ credits: 2 });
    const content = { student: { name: 'Ada', dateOfBirth: '1815-12-10' }, grade: 0 };
    const body = { name: 'Diploma', description: 'Mathematics', content };
    const created = await post(token, 'type=content&networkId=31337', body);
    const lookUp = (hash: string) =>
      request(api.app)
        .get(`/cert/v2/certificates/hash/${hash}`)
        .set('Authorization', `Bearer ${token}`);

    // Act
    const byDigest = await lookUp(contentCertificateHash(content));
    const byRoot = await lookUp(created.body.data.data.hash);
    const upperCase = await lookUp((created.body.data.data.hash as string).toUpperCase());
    const notAHash = await lookUp('not-a-hash');
    const again = await post(token, 'type=content&networkId=31337', { ...body, name: 'Other' });

    // Assert
    expect(created.status).toBe(201);
    expect(byDigest.status).toBe(200);
    expect(byDigest.body.data).toEqual(created.body.data);
    expect(byRoot.body.data).toEqual(created.body.data);
    // A hash is written as the APIs write it, as /files and /evidences take it.
    expect([upperCase.status, notAHash.status]).toEqual([400, 400]);
    expect(upperCase.body.errors).toEqual([
      { field: 'path.id', error: 'Expected 64 lowercase hexadecimal characters without 0x' },
    ]);
    expect(again.status).toBe(409);
  });

  it('when the content holds an integer beyond 2^53 or a member named _sd, then 400 on that field and nothing is spent', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 1 });
    const send = (content: string) =>
      request(api.app)
        .post(`${CREATE}?type=content&networkId=31337`)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send(`{"name":"n","description":"d","content":${content}}`);

    // Act
    const tooLarge = await send('{"id":{"serial":9007199254740993}}');
    const reserved = await send('{"_sd":["x"]}');

    // Assert
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors).toEqual([
      { field: 'body.content.id.serial', error: expect.stringContaining('I-JSON') as unknown },
    ]);
    expect(reserved.status).toBe(400);
    expect(reserved.body.errors[0].field).toBe('body.content._sd');
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
  });

  it('when the body names a member twice, then 400 naming it, nothing is certified and nothing is spent', async () => {
    // Arrange: JSON.parse would certify the last name; another reader of the request, the first.
    const { id, token } = await api.user({ credits: 1 });
    const send = (text: string) =>
      request(api.app)
        .post(`${CREATE}?type=content&networkId=31337`)
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send(text);

    // Act
    const name = await send(
      '{"name":"Diploma","description":"d","content":{"a":1},"name":"Forged"}',
    );
    const inContent = await send(
      '{"name":"n","description":"d","content":{"grade":"A","grade":"F"}}',
    );

    // Assert
    expect([name.status, inContent.status]).toEqual([400, 400]);
    expect(name.body.errors).toEqual([
      { field: 'body.name', error: expect.stringContaining('Given twice') as unknown },
    ]);
    expect(inContent.body.errors[0].field).toBe('body.content.grade');
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
    const listed = await request(api.app)
      .get('/cert/v2/certificates')
      .set('Authorization', `Bearer ${token}`);
    expect(listed.body.data.certificates).toEqual([]);
  });

  it('when the content has so many fields that its certificate could not be posted back for verification, then 400 on body.content and nothing is spent; a smaller one posts back', async () => {
    // Arrange: every array element becomes a disclosure of its own (about 100 bytes each).
    const { id, token } = await api.user({ credits: 2 });
    const numbers = (count: number) => Array.from({ length: count }, (_, index) => index);

    // Act
    const tooMany = await post(token, 'type=content&networkId=31337', {
      name: 'Readings',
      description: '',
      content: { a: numbers(60_000) },
    });
    const fewer = await post(token, 'type=content&networkId=31337', {
      name: 'Readings',
      description: '',
      content: { a: numbers(5_000) },
    });
    const postedBack = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .send(fewer.body.data);

    // Assert
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([
      { field: 'body.content', error: expect.stringContaining('4 MiB') as unknown },
    ]);
    expect(fewer.status).toBe(201);
    expect(postedBack.status).toBe(200);
    expect(await findCreditBalance(api.db.knex, id)).toBe(1);
  });

  it('when the content is one value of most of a JSON request, then its certificate, twice as large, posts back for verification', async () => {
    // Arrange
    const { token } = await api.user({ credits: 1 });
    const created = await post(token, 'type=content&networkId=31337', {
      name: 'Large',
      description: '',
      content: { text: 'x'.repeat(900_000) },
    });

    // Act
    const postedBack = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .send(created.body.data);

    // Assert
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body.data).length).toBeGreaterThan(1024 * 1024);
    expect(postedBack.status).toBe(200);
  });

  it('when the same content is certified twice, then 409 and no second credit is spent', async () => {
    const { id, token } = await api.user({ credits: 5 });
    const body = { name: 'Twice', description: '', content: { same: true } };
    expect((await post(token, 'type=content&networkId=31337', body)).status).toBe(201);

    const response = await post(token, 'type=content&networkId=31337', body);

    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      statusCode: 409,
      type: 'Existing certificate error',
      message: 'The certificate is already registered, please try again with a different content',
    });
    expect(await findCreditBalance(api.db.knex, id)).toBe(4);
  });

  it('when an externalId is reused, then 409 with the externalId message', async () => {
    const { token } = await api.user();
    expect(
      (
        await post(token, 'type=content&networkId=31337', {
          name: 'a',
          description: '',
          content: { n: 1 },
          externalId: 'ext-1',
        })
      ).status,
    ).toBe(201);

    const response = await post(token, 'type=content&networkId=31337', {
      name: 'b',
      description: '',
      content: { n: 2 },
      externalId: 'ext-1',
    });

    expect(response.status).toBe(409);
    expect(response.body.message).toBe(
      'The provided externalId is already registered, please try again with a different one',
    );
  });

  it('when many identical requests race, then exactly one wins', async () => {
    const { token } = await api.user();
    const body = { name: 'Race', description: '', content: { race: 'same' } };

    const statuses = (
      await Promise.all(
        Array.from({ length: 8 }, () => post(token, 'type=content&networkId=31337', body)),
      )
    ).map((r) => r.status);

    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
  });

  it('when credits run out under concurrency, then exactly as many succeed as there were credits', async () => {
    const { id, token } = await api.user({ credits: 3 });

    const statuses = (
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          post(token, 'type=content&networkId=31337', {
            name: `n${String(i)}`,
            description: '',
            content: { i },
          }),
        ),
      )
    ).map((r) => r.status);

    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(await findCreditBalance(api.db.knex, id)).toBe(0);
  });

  it('when a user has no credit balance at all, then 429 out of credits and nothing is stored', async () => {
    // Arrange: every account gets a balance when it is made; a lost one must not mean free.
    const user = await api.user({ credits: 5 });
    await api.db.knex('credits').where('user_id', user.id).delete();

    // Act
    const response = await post(user.token, 'type=content&networkId=31337', {
      name: 'No balance',
      description: '',
      content: { nonce: randomUUID() },
    });

    // Assert
    expect(response.status).toBe(429);
    expect(response.body.statusCode).toBe(429);
    const stored = await api.db.knex('certificates').where('user_id', user.id).count('* as count');
    expect(Number(stored[0]?.count)).toBe(0);
  });

  describe('when creations of several requests share one transaction', () => {
    /** A creation request of a user, with the content it certifies. */
    interface Creation {
      user: { id: string; token: string };
      content: Record<string, string | number>;
    }

    const create = ({ user, content }: Creation) =>
      post(user.token, 'type=content&networkId=31337', { name: 'Batch', description: '', content });

    const readAs = (token: string, certId: string) =>
      request(api.app)
        .get(`/cert/v2/certificates/certID/${certId}`)
        .set('Authorization', `Bearer ${token}`);

    const distinctContents = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ i, nonce: randomUUID() }));

    const count = (statuses: number[], status: number) =>
      statuses.filter((s) => s === status).length;

    /**
     * A user with one credit left (two at first, one spent on `existing`) sends a repeat of
     * `existing` and a new content at the same time, in the order given (requests sent together
     * reach the creation batch in the order they were sent).
     */
    async function repeatAndNew(repeatFirst: boolean) {
      const user = await api.user({ credits: 2 });
      const existing = { existing: randomUUID() };
      expect((await create({ user, content: existing })).status).toBe(201);
      const repeat = { user, content: existing };
      const fresh = { user, content: { fresh: randomUUID() } };

      const [first, second] = await Promise.all(
        (repeatFirst ? [repeat, fresh] : [fresh, repeat]).map(create),
      );

      const [repeated, created] = repeatFirst ? [first, second] : [second, first];
      return { user, fresh, repeated, created };
    }

    async function expectRepeatRefusedAndNewCreated(
      outcome: Awaited<ReturnType<typeof repeatAndNew>>,
    ) {
      const { user, fresh, repeated, created } = outcome;
      expect([repeated?.status, created?.status]).toEqual([409, 201]);
      expect(repeated?.body.message).toBe(
        'The certificate is already registered, please try again with a different content',
      );
      expect(created?.body.data.data.content).toEqual(fresh.content);
      expect(await findCreditBalance(api.db.knex, user.id)).toBe(0);
    }

    it('when a user with one credit left sends at once a repeat, then a new content, then 409 and 201, and the balance is 0', async () => {
      // Act
      const outcome = await repeatAndNew(true);

      // Assert
      await expectRepeatRefusedAndNewCreated(outcome);
    });

    // The new content takes the last credit; the repeat, with none left, is still a 409.
    it('when a user with one credit left sends at once a new content, then a repeat, then 201 and 409, and the balance is 0', async () => {
      // Act
      const outcome = await repeatAndNew(false);

      // Assert
      await expectRepeatRefusedAndNewCreated(outcome);
    });

    it('when three users create at once, then each gets exactly its own outcomes and certificates', async () => {
      // Arrange: one user runs out of credit, one repeats a content of its own, one is plain.
      const short = await api.user({ credits: 4 });
      const repeating = await api.user({ credits: 20 });
      const plain = await api.user({ credits: 20 });
      const repeated = { repeated: randomUUID() };
      const creations: Creation[] = [
        ...distinctContents(10).map((content) => ({ user: short, content })),
        ...[repeated, repeated, ...distinctContents(8)].map((content) => ({
          user: repeating,
          content,
        })),
        ...distinctContents(10).map((content) => ({ user: plain, content })),
      ];
      // Interleaved, so that every user's requests are spread over the batch.
      const interleaved = Array.from({ length: 10 }, (_, i) =>
        [0, 10, 20].map((offset) => creations[offset + i] as Creation),
      ).flat();

      // Act
      const responses = await Promise.all(interleaved.map(create));

      // Assert
      const statusesOf = (user: { id: string }) =>
        responses.filter((_, i) => interleaved[i]?.user === user).map((r) => r.status);
      expect([count(statusesOf(short), 201), count(statusesOf(short), 429)]).toEqual([4, 6]);
      expect([count(statusesOf(repeating), 201), count(statusesOf(repeating), 409)]).toEqual([
        9, 1,
      ]);
      expect(count(statusesOf(plain), 201)).toBe(10);
      expect(
        responses
          .filter((_, i) => interleaved[i]?.content === repeated)
          .map((r) => r.status)
          .sort(),
      ).toEqual([201, 409]);
      const certIds = new Set<string>();
      for (const [i, response] of responses.entries()) {
        if (response.status !== 201) continue;
        const { user, content } = interleaved[i] as Creation;
        const certificate = certificateSchema.parse(response.body.data);
        expect(certificate.data.issuer).toBe(`did:user:${user.id}`);
        expect(certificate.data.content).toEqual(content);
        const later = await readAs(user.token, certificate.certID);
        expect(later.status).toBe(200);
        expect(response.body.data).toEqual(later.body.data);
        certIds.add(certificate.certID);
      }
      expect(certIds.size).toBe(4 + 9 + 10);
      expect(await findCreditBalance(api.db.knex, short.id)).toBe(0);
      expect(await findCreditBalance(api.db.knex, repeating.id)).toBe(20 - 9);
      expect(await findCreditBalance(api.db.knex, plain.id)).toBe(20 - 10);
    });

    it('when users with credit enough create at once, then their groups are each one statement that locks the balances itself, with no transaction around it', async () => {
      // Arrange
      const users = [await api.user({ credits: 10 }), await api.user({ credits: 10 })];
      // knex names the transaction a statement runs in, if any.
      const statements: { sql: string; __knexTxId?: string }[] = [];
      const listen = (query: { sql: string; __knexTxId?: string }) => {
        statements.push(query);
      };
      api.db.knex.on('query', listen);

      // Act
      const responses = await Promise.all(
        distinctContents(12).map((content, i) =>
          create({ user: users[i % 2] as Creation['user'], content }),
        ),
      );
      api.db.knex.off('query', listen);

      // Assert
      expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 201));
      const creations = statements.filter(({ sql }) => sql.includes('insert into certificates'));
      expect(creations.length).toBeGreaterThan(0);
      for (const { sql, __knexTxId } of creations) {
        expect(sql).toContain('balances_locked');
        expect(__knexTxId).toBeUndefined();
      }
      for (const user of users) expect(await findCreditBalance(api.db.knex, user.id)).toBe(4);
    });

    it('when requests of two users race, then each balance ends at its initial credits minus its successes', async () => {
      // Arrange: one user has more credits than distinct contents (three of its eight repeat),
      // the other fewer credits than requests.
      const repeater = await api.user({ credits: 10 });
      const spender = await api.user({ credits: 5 });
      const same = { same: randomUUID() };
      const creations: Creation[] = [
        ...[same, same, same, ...distinctContents(5)].map((content) => ({
          user: repeater,
          content,
        })),
        ...distinctContents(8).map((content) => ({ user: spender, content })),
      ].sort(() => Math.random() - 0.5);

      // Act
      const responses = await Promise.all(creations.map(create));

      // Assert
      const successesOf = (user: { id: string }) =>
        responses.filter((r, i) => creations[i]?.user === user && r.status === 201).length;
      const certificatesOf = async (user: { id: string }) =>
        Number(
          (
            await api.db
              .knex('certificates')
              .where('user_id', user.id)
              .count<{ count: number | string }[]>({ count: '*' })
          )[0]?.count,
        );
      expect(successesOf(repeater)).toBe(6);
      expect(successesOf(spender)).toBe(5);
      expect(await findCreditBalance(api.db.knex, repeater.id)).toBe(10 - successesOf(repeater));
      expect(await findCreditBalance(api.db.knex, spender.id)).toBe(5 - successesOf(spender));
      expect(await certificatesOf(repeater)).toBe(successesOf(repeater));
      expect(await certificatesOf(spender)).toBe(successesOf(spender));
    });
  });

  it('when the network is not in the plan, then 403; when it is unknown, then 400 on query.networkId', async () => {
    const { token } = await api.user({ networks: [] });
    const body = { name: 'x', description: '', content: { x: 1 } };

    const outside = await post(token, 'type=content&networkId=31337', body);
    const unknown = await post(token, 'type=content&networkId=80001', body);

    expect(outside.status).toBe(403);
    expect(outside.body.message).toMatch(/^Provider not available in your plan/);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      { field: 'query.networkId', error: 'Unknown or unconfigured network' },
    ]);
  });

  it('when the query and the body are both malformed, then one 400 lists every problem of both and nothing is created', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 2 });

    // Act
    const response = await post(token, 'type=content', { description: 1 });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('Validation Error');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'query.networkId',
      'body.name',
      'body.description',
      'body.content',
    ]);
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
  });

  it('when the network is unknown, expires is past and content holds an integer beyond 2^53, then one 400 names each, on query.networkId and body.<path>', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 2 });

    // Act
    const response = await request(api.app)
      .post(`${CREATE}?type=content&networkId=80001`)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(
        '{"name":"","description":"d","expires":1000,"content":{"x":123456789012345678901234567890}}',
      );

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { field: 'body.name', error: expect.any(String) as unknown },
      {
        field: 'body.content.x',
        error:
          'Integers beyond 2^53 - 1 lose digits in JSON (I-JSON, RFC 7493): send it as a string',
      },
      { field: 'query.networkId', error: 'Unknown or unconfigured network' },
      { field: 'body.expires', error: 'Must be later than now, in milliseconds since the epoch' },
    ]);
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
  });

  it.each([
    ['in the past', () => 1000],
    ['in seconds, not milliseconds', () => Math.floor(Date.now() / 1000) + 3600],
    ['a moment ago', () => Date.now() - 1],
  ])(
    'when expires is %s, then 400 on body.expires and no credit is spent',
    async (_case, expires) => {
      // Arrange
      const { id, token } = await api.user({ credits: 2 });

      // Act
      const response = await post(token, 'type=content&networkId=31337', {
        name: 'Expired',
        description: '',
        expires: expires(),
        content: { expires: randomUUID() },
      });

      // Assert
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { field: 'body.expires', error: 'Must be later than now, in milliseconds since the epoch' },
      ]);
      expect(await findCreditBalance(api.db.knex, id)).toBe(2);
    },
  );

  it('when expires is past the last time a date can name (year 275760), then 400 on body.expires saying so and no credit is spent', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 2 });

    // Act
    const response = await post(token, 'type=content&networkId=31337', {
      name: 'Forever',
      description: '',
      expires: 8_640_000_000_000_001,
      content: { expires: randomUUID() },
    });

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: 'body.expires',
        error: expect.stringContaining('at most 8640000000000000 (year 275760)') as unknown,
      },
    ]);
    expect(await findCreditBalance(api.db.knex, id)).toBe(2);
  });

  it('when expires is later than now, in milliseconds, then the certificate is created with it', async () => {
    // Arrange
    const { token } = await api.user();
    const expires = Date.now() + 24 * 3600 * 1000;

    // Act
    const response = await post(token, 'type=content&networkId=31337', {
      name: 'Expires tomorrow',
      description: '',
      expires,
      content: { expires: randomUUID() },
    });

    // Assert
    expect(response.status).toBe(201);
    expect(certificateSchema.parse(response.body.data).data.expires).toBe(expires);
  });

  it('when no token or a bad token is sent, then 401 with the matching message', async () => {
    const { id } = await api.user();
    const body = { name: 'x', description: '', content: { x: 1 } };

    const none = await post(undefined, 'type=content&networkId=31337', body);
    const invalid = await post(
      await tokenFor(id, 'another-secret-another-secret-32b'),
      'type=content&networkId=31337',
      body,
    );
    const expired = await post(
      await tokenFor(id, undefined, -10),
      'type=content&networkId=31337',
      body,
    );
    const stranger = await post(await tokenFor('nobody'), 'type=content&networkId=31337', body);

    expect([
      none.body.message,
      invalid.body.message,
      expired.body.message,
      stranger.body.message,
    ]).toEqual([
      'Token is not provided',
      'Token is invalid',
      'Token is expired',
      'User credentials are wrong',
    ]);
    expect(new Set([none.status, invalid.status, expired.status, stranger.status])).toEqual(
      new Set([401]),
    );
  });
});
