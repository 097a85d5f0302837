import { randomUUID } from 'node:crypto';
import { countPendingAnchorRecords, findCreditBalance } from '@trustpoint/db';
import { holdMining, resumeMining } from '@trustpoint/contracts';
import { testBackends } from '@trustpoint/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const CREATE = '/cert/v2/certificates?type=content&networkId=31337';
const LIMIT = 4;

const BUSY = {
  statusCode: 503,
  type: 'Service Unavailable Error',
  message:
    'The blockchain network has more records waiting than it can take now, please try again later',
};

// A network whose queue holds four records, on a node whose mining the tests hold back as a
// congested chain would: creations past the limit are refused before anything is stored.
describe.each(testBackends())('Queue limit of certificate creations on %s', (backend) => {
  let api: CertApiFixture;

  beforeAll(async () => {
    api = await startCertApi(backend, { maxQueuedRecords: LIMIT });
  });

  afterAll(async () => {
    await resumeMining(api.chain.url, api.chain.writeHeaders);
    await api.close();
  });

  /** An asynchronous creation of `content` (a new one by default). */
  const create = (
    token: string,
    headers: Record<string, string> = {},
    content: Record<string, unknown> = { n: randomUUID() },
  ) => {
    let sent = request(api.app)
      .post(CREATE)
      .set('Authorization', `Bearer ${token}`)
      .set('Prefer', 'respond-async');
    for (const [name, value] of Object.entries(headers)) sent = sent.set(name, value);
    return sent.send({ name: 'Busy', description: '', content });
  };

  const pending = () => countPendingAnchorRecords(api.db.knex, '31337', 1_000);

  const total = async (token: string) => {
    const listed = await request(api.app)
      .get('/cert/v2/certificates')
      .set('Authorization', `Bearer ${token}`);
    expect(listed.status).toBe(200);
    return (listed.body as { data: { pagination: { total: number } } }).data.pagination.total;
  };

  /** Lets the chain mine again and waits until nothing is pending. */
  const drain = async () => {
    await resumeMining(api.chain.url, api.chain.writeHeaders);
    const deadline = Date.now() + 20_000;
    while ((await pending()) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await pending()).toBe(0);
  };

  it('when twelve asynchronous creations come at once past the limit, then four are answered 202 and eight 503 networkBusy with Retry-After, spending and storing nothing, and the queue never holds more than four', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 20 });
    await holdMining(api.chain.url, api.chain.writeHeaders);
    const depths: number[] = [];
    const watching = setInterval(() => {
      void pending().then((depth) => depths.push(depth));
    }, 20);

    // Act
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(token)));
    clearInterval(watching);

    // Assert
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 503);
    expect(accepted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(12 - LIMIT);
    for (const answer of refused) {
      expect(answer.body).toEqual(BUSY);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(await findCreditBalance(api.db.knex, id)).toBe(20 - LIMIT);
    expect(await total(token)).toBe(LIMIT);
    expect(await pending()).toBe(LIMIT);
    expect(Math.max(0, ...depths)).toBeLessThanOrEqual(LIMIT);

    await drain();
  });

  it('when a synchronous or a qualified creation, or a signature, comes while the queue is full, then it is refused at once too', async () => {
    // Arrange
    const { token } = await api.user({ credits: 10, qualified: true });
    const earlier = await api.certify(token);
    await holdMining(api.chain.url, api.chain.writeHeaders);
    const filled = await Promise.all(Array.from({ length: LIMIT }, () => create(token)));
    expect(filled.map((answer) => answer.status)).toEqual(Array(LIMIT).fill(202));

    // Act
    const started = Date.now();
    const synchronous = await request(api.app)
      .post(CREATE)
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'Waits', description: '', content: { n: randomUUID() } });
    const qualified = await request(api.app)
      .post(`${CREATE}&qualified=true`)
      .set('Authorization', `Bearer ${token}`)
      .set('Prefer', 'respond-async')
      .send({ name: 'Signed', description: '', content: { n: randomUUID() } });

    const signature = await request(api.app)
      .post(
        `/cert/v2/certificates/certID/${encodeURIComponent(earlier.certID)}/signature?networkId=31337`,
      )
      .set('Authorization', `Bearer ${token}`);

    // Assert
    expect(synchronous.status).toBe(503);
    expect(synchronous.body).toEqual(BUSY);
    expect(qualified.status).toBe(503);
    expect(signature.status).toBe(503);
    expect(signature.body).toEqual(BUSY);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await total(token)).toBe(LIMIT + 1);

    await drain();
  });

  it('when a refused creation carried an Idempotency-Key, then the key is given up and the same request creates once the queue has drained', async () => {
    // Arrange
    const { id, token } = await api.user({ credits: 10 });
    await holdMining(api.chain.url, api.chain.writeHeaders);
    await Promise.all(Array.from({ length: LIMIT }, () => create(token)));
    const key = randomUUID();
    const content = { retried: randomUUID() };
    const refused = await create(token, { 'Idempotency-Key': key }, content);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);

    // Act
    await drain();
    const retried = await create(token, { 'Idempotency-Key': key }, content);

    // Assert
    expect(retried.status).toBe(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await total(token)).toBe(LIMIT + 1);
    expect(await findCreditBalance(api.db.knex, id)).toBe(10 - LIMIT - 1);
    await drain();
  });
});
