import { testBackends } from '@trustpoint/test-database';
import { TOO_MANY_REQUESTS_BODY } from '@trustpoint/http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { certApiDocument } from '../src/openapi/cert-api-document.js';
import { DEFAULT_PIN_ATTEMPT_LIMITS } from '../src/server.js';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

/** Limits set through the services, smaller than the defaults so that tests stay short. */
const PER_CERTIFICATE = 3;
const PER_ADDRESS = 7;
const WINDOW_MS = 600_000;

const PIN = '2468';
const WRONG_PIN = '1111';

type App = CertApiFixture['app'];

describe.each(testBackends())('failed PIN attempts on %s', (backend) => {
  let api: CertApiFixture;
  let clock = Date.now();

  beforeAll(async () => {
    api = await startCertApi(backend, {
      now: () => clock,
      pinAttempts: {
        perCertificate: PER_CERTIFICATE,
        perAddress: PER_ADDRESS,
        windowMs: WINDOW_MS,
      },
    });
  });

  afterAll(async () => {
    await api.close();
  });

  // Every test comes from the same address: each starts after the windows of the one before.
  beforeEach(() => {
    clock += 2 * WINDOW_MS;
  });

  const withPin = (pin: string | undefined) => (pin === undefined ? '' : `?pin=${pin}`);
  const read = (app: App, certID: string, pin?: string, token?: string) => {
    const call = request(app).get(`/cert/v2/certificates/certID/${certID}${withPin(pin)}`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };
  const verify = (app: App, certID: string, pin?: string, token?: string) => {
    const call = request(app).get(`/cert/v2/trustpoints/certID/${certID}${withPin(pin)}`);
    return token === undefined ? call : call.set('Authorization', `Bearer ${token}`);
  };

  async function pinProtected(): Promise<{ certID: string; ownerToken: string }> {
    const owner = await api.user();
    const created = await api.certify(owner.token, { public: true, certificatePin: PIN });
    return { certID: created.certID, ownerToken: owner.token };
  }

  async function failures(app: App, certID: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 1) statuses.push((await read(app, certID, WRONG_PIN)).status);
    return statuses;
  }

  it('when wrong PINs reach the limit, then each is a 403 and the next a 429 with Retry-After', async () => {
    // Arrange
    const { certID } = await pinProtected();

    // Act
    const refused = [];
    for (let i = 0; i < PER_CERTIFICATE; i += 1)
      refused.push(await read(api.app, certID, WRONG_PIN));
    const limited = await read(api.app, certID, WRONG_PIN);

    // Assert
    for (const response of refused) {
      expect(response.status).toBe(403);
      expect(response.body.message).toBe('This certificate requires a PIN, please provide it');
    }
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(TOO_MANY_REQUESTS_BODY);
    expect(limited.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
  });

  it('when a certificate is locked, then even its right PIN gets 429, on reads and verification', async () => {
    // Arrange
    const { certID } = await pinProtected();
    await failures(api.app, certID, PER_CERTIFICATE);

    // Act
    const readRight = await read(api.app, certID, PIN);
    const verifyRight = await verify(api.app, certID, PIN);
    const verifyWrong = await verify(api.app, certID, WRONG_PIN);

    // Assert
    expect(readRight.status).toBe(429);
    expect(readRight.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(verifyRight.status).toBe(429);
    expect(verifyRight.body).toEqual(TOO_MANY_REQUESTS_BODY);
    expect(verifyWrong.status).toBe(429);
  });

  it('when wrong PINs are sent to the verification route, then they count against the same limit', async () => {
    // Arrange
    const { certID } = await pinProtected();

    // Act
    const statuses = [];
    for (let i = 0; i < PER_CERTIFICATE; i += 1) {
      statuses.push((await verify(api.app, certID, WRONG_PIN)).status);
    }
    const afterwards = await read(api.app, certID, PIN);

    // Assert
    expect(statuses).toEqual(Array(PER_CERTIFICATE).fill(403));
    expect(afterwards.status).toBe(429);
  });

  it('when a certificate is locked, then its issuer with a token still reads and verifies it', async () => {
    // Arrange
    const { certID, ownerToken } = await pinProtected();
    await failures(api.app, certID, PER_CERTIFICATE + 5);

    // Act
    const issuerRead = await read(api.app, certID, undefined, ownerToken);
    const issuerVerify = await verify(api.app, certID, undefined, ownerToken);

    // Assert
    expect(issuerRead.status).toBe(200);
    expect(issuerRead.body.data.certID).toBe(certID);
    expect(issuerVerify.status).toBe(200);
  });

  it('when the right PIN is given below the limit, then it is answered and not counted', async () => {
    // Arrange
    const { certID } = await pinProtected();
    await failures(api.app, certID, PER_CERTIFICATE - 1);

    // Act
    const reads = [];
    for (let i = 0; i < PER_CERTIFICATE; i += 1)
      reads.push((await read(api.app, certID, PIN)).status);
    const lastWrong = await read(api.app, certID, WRONG_PIN);
    const limited = await read(api.app, certID, WRONG_PIN);

    // Assert
    expect(reads).toEqual(Array(PER_CERTIFICATE).fill(200));
    expect(lastWrong.status).toBe(403);
    expect(limited.status).toBe(429);
  });

  it('when a certificate is locked, then another certificate still answers its PIN', async () => {
    // Arrange
    const locked = await pinProtected();
    const other = await pinProtected();
    await failures(api.app, locked.certID, PER_CERTIFICATE);

    // Act
    const right = await read(api.app, other.certID, PIN);
    const wrong = await read(api.app, other.certID, WRONG_PIN);

    // Assert
    expect((await read(api.app, locked.certID, PIN)).status).toBe(429);
    expect(right.status).toBe(200);
    expect(wrong.status).toBe(403);
  });

  it("when wrong PINs over several certificates use up the address's budget, then every PIN attempt from it gets 429", async () => {
    // Arrange: the budget spent on as many certificates as it takes, each below or at its own limit.
    const spent = [];
    for (let left = PER_ADDRESS; left > 0; left -= PER_CERTIFICATE) {
      const { certID } = await pinProtected();
      spent.push(...(await failures(api.app, certID, Math.min(left, PER_CERTIFICATE))));
    }
    const fresh = await pinProtected();

    // Act
    const right = await read(api.app, fresh.certID, PIN);
    const wrong = await verify(api.app, fresh.certID, WRONG_PIN);
    const issuer = await read(api.app, fresh.certID, undefined, fresh.ownerToken);

    // Assert
    expect(spent).toEqual(Array(PER_ADDRESS).fill(403));
    expect(right.status).toBe(429);
    expect(right.body).toEqual(TOO_MANY_REQUESTS_BODY);
    expect(right.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(wrong.status).toBe(429);
    expect(issuer.status).toBe(200);
  });

  it('when two API instances share the database, then failures on either count for both', async () => {
    // Arrange
    const { certID } = await pinProtected();
    const second = api.appWith(api.signer);

    // Act
    const statuses = [];
    for (let i = 0; i < PER_CERTIFICATE; i += 1) {
      const app = i % 2 === 0 ? api.app : second;
      statuses.push((await read(app, certID, WRONG_PIN)).status);
    }
    const onFirst = await read(api.app, certID, PIN);
    const onSecond = await read(second, certID, PIN);

    // Assert
    expect(statuses).toEqual(Array(PER_CERTIFICATE).fill(403));
    expect(onFirst.status).toBe(429);
    expect(onSecond.status).toBe(429);
  });

  it('when many wrong PINs arrive at once, then no more than the limit are checked', async () => {
    // Arrange
    const { certID } = await pinProtected();
    const second = api.appWith(api.signer);

    // Act
    const responses = await Promise.all(
      Array.from({ length: 3 * PER_CERTIFICATE }, (_, i) =>
        read(i % 2 === 0 ? api.app : second, certID, WRONG_PIN),
      ),
    );

    // Assert
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 403)).toHaveLength(PER_CERTIFICATE);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2 * PER_CERTIFICATE);
  });

  it('when the window passes, then the Retry-After counts down and PINs are answered again', async () => {
    // Arrange
    const { certID } = await pinProtected();
    await failures(api.app, certID, PER_CERTIFICATE);

    // Act
    clock += WINDOW_MS / 4;
    const meanwhile = await read(api.app, certID, PIN);
    clock += (3 * WINDOW_MS) / 4;
    const right = await read(api.app, certID, PIN);
    const wrong = await read(api.app, certID, WRONG_PIN);

    // Assert
    expect(meanwhile.status).toBe(429);
    expect(meanwhile.headers['retry-after']).toBe(String((3 * WINDOW_MS) / 4 / 1000));
    expect(right.status).toBe(200);
    expect(wrong.status).toBe(403);
  });
  it('when a new window starts, then the windows that ended are pruned', async () => {
    // Arrange
    const { certID } = await pinProtected();
    await failures(api.app, certID, PER_CERTIFICATE);
    clock += WINDOW_MS;
    const other = await pinProtected();

    // Act
    await read(api.app, other.certID, WRONG_PIN);

    // Assert
    const ended = await api.db.knex('pin_failures').where('window_ends_at', '<=', clock);
    const current = await api.db.knex('pin_failures').where('window_ends_at', '>', clock);
    expect(ended).toEqual([]);
    expect(current).toHaveLength(2);
  });

  it('when the document is read, then both PIN operations document the 429 with Retry-After and the limits', async () => {
    // Act
    const response = await request(api.app).get('/cert/v2/openapi.json');

    // Assert
    const { paths } = response.body as {
      paths: Record<string, { get: { description: string; responses: Record<string, unknown> } }>;
    };
    for (const path of ['/certificates/{type}/{id}', '/trustpoints/{type}/{id}']) {
      expect(paths[path]?.get.responses['429'], path).toMatchObject({
        headers: { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } },
      });
    }
    expect(paths['/certificates/{type}/{id}']?.get.description).toContain(
      `limited to ${String(PER_CERTIFICATE)} per certificate`,
    );
    expect(paths['/certificates/{type}/{id}']?.get.description).toContain('a window of 10 minutes');
  });
});

describe('the limits on wrong PINs', () => {
  it('when nothing is configured, then 10 per certificate and 50 per address in an hour, as documented', () => {
    const description = JSON.stringify(certApiDocument());

    expect(DEFAULT_PIN_ATTEMPT_LIMITS).toEqual({
      perCertificate: 10,
      perAddress: 50,
      windowMs: 3_600_000,
    });
    expect(description).toContain('limited to 10 per certificate');
    expect(description).toContain('50 per client address');
    expect(description).toContain('a window of 1 hour');
  });

  it('when a limit is not a positive integer, then the document (and so the app) is refused', () => {
    expect(() => certApiDocument({ pinAttempts: { perCertificate: 0 } })).toThrow(
      'pinAttempts.perCertificate must be a positive integer, got 0',
    );
    expect(() => certApiDocument({ pinAttempts: { windowMs: 1.5 } })).toThrow(RangeError);
  });
});
