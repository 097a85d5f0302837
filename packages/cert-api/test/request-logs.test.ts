import { testBackends } from '@trustpoint/test-database';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCertApi, type CertApiFixture } from './support/cert-api-fixture.js';
import { request } from './support/checked-request.js';

const PIN = '73194682';

describe.each(testBackends())('request logs of /cert/v2 on %s', (backend) => {
  let api: CertApiFixture;
  const lines: string[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    api = await startCertApi(backend, { logger });
  });

  afterAll(async () => {
    await api.close();
  });

  it.each([
    ['pin', 200],
    ['p%69n', 200],
    ['%70%69%6E', 200],
    ['pi%6e', 200],
    ['PIN', 403],
    ['P%49N', 403],
  ])(
    'when a certificate is read with its PIN as ?%s=, then it answers %i and no log line holds the PIN',
    async (name, status) => {
      // Arrange
      const owner = await api.user();
      const created = await api.certify(owner.token, { public: true, certificatePin: PIN });
      lines.length = 0;

      // Act
      const response = await request(api.app).get(
        `/cert/v2/certificates/certID/${created.certID}?fields=data&${name}=${PIN}`,
      );

      // Assert
      expect(response.status).toBe(status);
      const logged = lines.filter((line) => line.includes(created.certID));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(`${name}=[Redacted]`);
      expect(logged[0]).toContain('fields=data');
      expect(lines.join('\n')).not.toContain(PIN);
    },
  );
});

describe.each(testBackends())('use-case log lines of /cert/v2 on %s', (backend) => {
  let api: CertApiFixture;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const logger = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    api = await startCertApi(backend, { logger });
  });

  afterAll(async () => {
    await api.close();
  });

  it("when certificates are created at once, then each one's anchored line carries its own request id", async () => {
    // Arrange
    const owner = await api.user();
    const ids = ['create-1', 'create-2', 'create-3'];

    // Act
    const responses = await Promise.all(
      ids.map((id) =>
        request(api.app)
          .post('/cert/v2/certificates?type=content&networkId=31337')
          .set('Authorization', `Bearer ${owner.token}`)
          .set('X-Request-Id', id)
          .send({ name: id, description: '', content: { id } }),
      ),
    );

    // Assert
    for (const [index, response] of responses.entries()) {
      expect(response.status).toBe(201);
      const { certID } = response.body.data as { certID: string };
      expect(
        lines.filter((line) => line.msg === 'certificate anchored' && line.certId === certID),
      ).toEqual([expect.objectContaining({ reqId: ids[index] })]);
    }
  });
});
