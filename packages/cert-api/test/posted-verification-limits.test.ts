// POST /trustpoints/verification takes a certificate copy from anyone, without a token, and asks
// the service's node about every trustpoint it lists: what bounds that work (found by a forger's
// probe: one 950 KB copy listing 3,000 trustpoints cost 19 s and thousands of eth_calls).
import { freePort } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { SERVICE_BUSY_BODY, TOO_MANY_REQUESTS_BODY } from '@trustpoint/http';
import { MAX_CERTIFICATE_TRUSTPOINTS } from '@trustpoint/verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';
import { startJsonRpcRelay, type JsonRpcRelay } from '@trustpoint/test-doubles/json-rpc-relay';

const PER_MINUTE = 5;

describe.each(testBackends())('posted certificate copies on %s', (backend) => {
  let api: CertApiFixture;
  let relay: JsonRpcRelay;
  /** The eth_calls the node was asked, in order. */
  const ethCalls: string[] = [];
  /** While set, the node holds every eth_call until it is resolved (a slow node). */
  let hold: Promise<void> | undefined;
  let certificate: { certID: string; metadata: object[] } & Record<string, unknown>;
  let nextAddress = 1;
  /** A client address of its own, so each test has its own budget (behind a trusted proxy). */
  const address = () => `198.51.100.${String(nextAddress++)}`;
  const post = (body: unknown, from = address()) =>
    request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .set('X-Forwarded-For', from)
      .send(body as object);
  const listing = (count: number) => ({
    ...certificate,
    metadata: Array.from({ length: count }, () => certificate.metadata[0]),
  });

  beforeAll(async () => {
    // The service's node is a relay in front of the chain, which counts and may hold its calls.
    const rpcPort = await freePort();
    api = await startCertApi(backend, {
      rpcUrl: `http://127.0.0.1:${String(rpcPort)}`,
      postedVerifications: { perMinute: PER_MINUTE, atOnce: 1 },
      rateLimitsInDatabase: true,
      // Inside one minute of the epoch, whenever the file runs: the counts are per minute.
      rateLimitClock: () => 1_800_000_030_000,
      trustProxy: true,
    });
    relay = await startJsonRpcRelay(
      api.chain.url,
      async (call, reply) => {
        if (call.method !== 'eth_call') return reply;
        ethCalls.push(call.method);
        await hold;
        return reply;
      },
      rpcPort,
    );
    const { token } = await api.user();
    const created = await api.certify(token, { public: true });
    const read = await request(api.app).get(`/cert/v2/certificates/certID/${created.certID}`);
    certificate = read.body.data as typeof certificate;
  }, 120_000);

  afterAll(async () => {
    await relay.close();
    await api.close();
  });

  it('when a copy lists 3,000 trustpoints (950 KB), then 400 naming body.metadata, and the node is asked nothing', async () => {
    // The genuine Evidence at 3,000 other times: about the probe's 950 KB (under the 1 MiB limit).
    const forged = {
      ...certificate,
      metadata: Array.from({ length: 3_000 }, (_, index) => ({
        ...certificate.metadata[0],
        timestamp: 1_767_225_600_000 + index,
      })),
    };
    const size = JSON.stringify(forged).length;
    const asked = ethCalls.length;

    const response = await post(forged);

    expect(size).toBeGreaterThan(900_000);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, type: 'Validation Error' });
    expect(response.body.errors).toEqual([
      {
        field: 'body.metadata',
        error: `Lists 3000 trustpoints; a certificate lists at most ${String(MAX_CERTIFICATE_TRUSTPOINTS)}`,
      },
    ]);
    // Refused without any node read.
    expect(ethCalls.length).toBe(asked);
  });

  it('when a copy names a member twice, then 400 naming it, whichever value JSON.parse would keep, and the node is asked nothing', async () => {
    const text = JSON.stringify(certificate);
    const renamed = text.replace('"name":', '"name":"Forged name","name":');
    const escaped = text.replace('"description":', '"description":"x","\\u0064escription":');
    const asked = ethCalls.length;

    const responses = await Promise.all(
      [renamed, escaped].map((body) =>
        request(api.app)
          .post('/cert/v2/trustpoints/verification')
          .set('X-Forwarded-For', address())
          .set('Content-Type', 'application/json')
          .send(body),
      ),
    );

    expect(renamed).toContain('"name":"Forged name","name":');
    expect(responses.map((response) => response.status)).toEqual([400, 400]);
    expect(
      responses.map(
        (response) => (response.body as { errors: { field: string }[] }).errors[0]?.field,
      ),
    ).toEqual(['body.data.name', 'body.data.description']);
    expect(ethCalls.length).toBe(asked);
  });

  it('when a copy writes a number with more digits than its value holds, then 400 naming it, as every verifier refuses that file, and the node is asked nothing', async () => {
    // Arrange: the trustpoint's timestamp with a fraction a double cannot hold: JSON.parse reads
    // the genuine integer, a decimal reader a time that is not it.
    const text = JSON.stringify(certificate).replace(
      /"timestamp":(\d+)/,
      (_match, digits: string) => `"timestamp":${digits}.00000000000000001`,
    );
    const asked = ethCalls.length;

    // Act
    const response = await request(api.app)
      .post('/cert/v2/trustpoints/verification')
      .set('X-Forwarded-For', address())
      .set('Content-Type', 'application/json')
      .send(text);

    // Assert
    expect(text).toContain('.00000000000000001');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: expect.stringMatching(/^body\.metadata\[0\]\.timestamp$/) as unknown,
        error: expect.stringContaining('must be written as the value it holds') as unknown,
      },
    ]);
    expect(ethCalls.length).toBe(asked);
  });

  it.each([
    ['smartContract', '0xdead', 'must be an address'],
    ['smartContract', `0x${'g'.repeat(40)}`, 'must be an address'],
    ['timestamp', -1, 'must be an integer, 0 or more'],
  ])(
    'when a copy names %s %j, then 400 saying what the field must be, not a 500, and the node is asked nothing',
    async (name, value, error) => {
      const forged = {
        ...certificate,
        metadata: [{ ...certificate.metadata[0], [name]: value }],
      };
      const asked = ethCalls.length;

      const response = await post(forged);

      expect(response.status).toBe(400);
      expect((response.body as { errors: { error: string }[] }).errors[0]?.error).toBe(
        `$.metadata[0].${name} ${error}`,
      );
      expect(ethCalls.length).toBe(asked);
    },
  );

  it('when a copy in its response envelope lists one more than the limit, then 400 names body.data.metadata; at the limit, it is verified', async () => {
    const over = await post({ statusCode: 200, message: 'ok', data: listing(65) });
    const asked = ethCalls.length;
    const at = await post(listing(MAX_CERTIFICATE_TRUSTPOINTS));

    expect(MAX_CERTIFICATE_TRUSTPOINTS).toBe(64);
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([
      {
        field: 'body.data.metadata',
        error: 'Lists 65 trustpoints; a certificate lists at most 64',
      },
    ]);
    expect(at.status).toBe(200);
    expect(at.body.data.trustpoints).toHaveLength(64);
    expect(at.body.data.trustpoints[0]).toMatchObject({ verdict: 'anchored' });
    expect(ethCalls.length).toBeGreaterThan(asked);
  });

  it('when one address posts more copies a minute than the limit, then 429 with Retry-After, counted in the database, while another address is served', async () => {
    const from = address();
    const answers = [];
    for (let count = 0; count < PER_MINUTE; count += 1) answers.push(await post(certificate, from));

    const refused = await post(certificate, from);
    const other = await post(certificate);
    const counted = await api.db
      .knex('rate_limit_counts')
      .where('key', `/cert/v2:posted-verifications:ip:${from}`)
      .first<{ hits: number | string } | undefined>('hits');

    expect(answers.map((answer) => answer.status)).toEqual(Array(PER_MINUTE).fill(200));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY_REQUESTS_BODY);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(Number(counted?.hits)).toBe(PER_MINUTE + 1);
    expect(other.status).toBe(200);
  });

  it('when more copies come than are checked at once and wait, then the extra one is a 503 with Retry-After at once, and the others are verified', async () => {
    let release!: () => void;
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked = ethCalls.length;
    // One runs (held at the node), one waits its turn, one is refused; which of the last two
    // arrives first is the network's choice.
    const running = post(certificate).then((response) => response);
    while (ethCalls.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    const [second, third] = [post(certificate).then((r) => r), post(certificate).then((r) => r)];
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
    expect(answers[0].body.data).toMatchObject({ certID: certificate.certID });
  });
});
