import { AnchorEngine, NetworkRegistry, type NetworkConfig } from '@trustpoint/chain';
import type { LocalChain } from '@trustpoint/contracts';
import { openTestDatabase, testBackends, type TestDatabase } from '@trustpoint/test-database';
import express, { Router } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceObservability, type ServiceObservability } from '../src/index.js';
import { evidenceRequest, startTestChain } from './support.js';

/** The value of one series line, e.g. `trustpoint_anchor_batch_size_count{network="31337"}`. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(testBackends())('metrics (%s)', (backend) => {
  let chain: LocalChain;
  let network: NetworkConfig;
  let database: TestDatabase;

  beforeAll(async () => {
    ({ chain, network } = await startTestChain());
    database = await openTestDatabase(backend);
  }, 60_000);
  afterAll(async () => {
    await database.close();
    await chain.stop();
  });

  function apiApp(observability: ServiceObservability) {
    const api = Router();
    api.get('/certificates/:certId', (req, res) => {
      res.status(req.params.certId === 'missing' ? 404 : 200).json({ id: req.params.certId });
    });
    const app = express();
    app.use(observability.httpMetrics);
    app.use(observability.router);
    app.use('/cert/v2', api);
    return app;
  }

  describe('when requests were answered', () => {
    it('then /metrics counts them by route pattern and status, with latency histograms, never by raw path', async () => {
      const observability = serviceObservability({ knex: database.knex, networks: [network] });
      const app = apiApp(observability);
      await request(app).get('/cert/v2/certificates/did:trustpoint:certid:1').expect(200);
      await request(app).get('/cert/v2/certificates/did:trustpoint:certid:2').expect(200);
      await request(app).get('/cert/v2/certificates/missing').expect(404);
      await request(app).get('/no/such/path/42').expect(404);

      const response = await request(app).get('/metrics').expect(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = response.text;
      const ok = 'method="GET",route="/cert/v2/certificates/:certId",status="200"';
      expect(valueOf(text, `trustpoint_http_requests_total{${ok}}`)).toBe(2);
      expect(
        valueOf(
          text,
          'trustpoint_http_requests_total{method="GET",route="/cert/v2/certificates/:certId",status="404"}',
        ),
      ).toBe(1);
      expect(
        valueOf(
          text,
          'trustpoint_http_requests_total{method="GET",route="unmatched",status="404"}',
        ),
      ).toBe(1);
      expect(valueOf(text, `trustpoint_http_request_duration_seconds_count{${ok}}`)).toBe(2);
      expect(text).toContain(`trustpoint_http_request_duration_seconds_bucket{le="0.005",${ok}}`);
      expect(text).not.toContain('certid:1');
      expect(text).not.toContain('/no/such/path');
      // The process and the pool.
      expect(text).toContain('trustpoint_process_resident_memory_bytes');
      expect(text).toMatch(/trustpoint_db_pool_connections\{pool="requests",state="max"\} [1-9]/);
      expect(valueOf(text, 'trustpoint_webhook_deliveries_pending')).toBe(0);
      expect(valueOf(text, 'trustpoint_registrar_balance_ether{network="31337"}')).toBeGreaterThan(
        0,
      );
    });
  });

  describe('when callers spell paths differently or send paths no route has', () => {
    it('then one route is one series whatever its spelling, and unmatched paths add no series', async () => {
      // Arrange
      const app = apiApp(serviceObservability({ knex: database.knex, networks: [network] }));
      const seriesOf = async () =>
        (await request(app).get('/metrics')).text
          .split('\n')
          .filter((line) => line.startsWith('trustpoint_http_requests_total{'))
          .filter((line) => !line.includes('route="/metrics"'));
      await request(app).get('/no/such/path/0').expect(404);
      const before = await seriesOf();

      // Act
      for (const [n, path] of ['/cert/v2', '/Cert/v2', '/CERT/V2', '/cErT/v2'].entries()) {
        await request(app)
          .get(`${path}/certificates/c-${String(n)}`)
          .expect(200);
        await request(app)
          .get(`${path}/Certificates/c-${String(n)}`)
          .expect(200);
      }
      for (let n = 1; n <= 50; n += 1) {
        await request(app)
          .get(`/Cert/v3/${String(n)}/x`)
          .expect(404);
      }
      const after = await seriesOf();

      // Assert
      const unmatched =
        'trustpoint_http_requests_total{method="GET",route="unmatched",status="404"}';
      expect(before).toEqual([`${unmatched} 1`]);
      expect(after.sort()).toEqual([
        'trustpoint_http_requests_total{method="GET",route="/cert/v2/certificates/:certId",status="200"} 8',
        `${unmatched} 51`,
      ]);
    });
  });

  describe('when METRICS_TOKEN is set', () => {
    it('then /metrics needs it as a bearer token, and /healthz still does not', async () => {
      const app = apiApp(
        serviceObservability({ knex: database.knex, networks: [], metricsToken: 's3cret-token' }),
      );
      const none = await request(app).get('/metrics').expect(401);
      const wrong = await request(app)
        .get('/metrics')
        .set('Authorization', 'Bearer wrong')
        .expect(401);
      // The spec's error body, as every other 401 of the service.
      expect(none.body).toEqual({
        statusCode: 401,
        type: 'Authentication Error',
        message: 'Token is not provided',
      });
      expect(wrong.body).toEqual({
        statusCode: 401,
        type: 'Authentication Error',
        message: 'Token is invalid',
      });
      await request(app).get('/metrics').set('Authorization', 'Bearer s3cret-token').expect(200);
      await request(app).get('/healthz').expect(200);
    });
  });

  describe('when records were queued and anchored by this process', () => {
    it('then /metrics shows them anchored per network, the batch size, gas per record, confirmation latency and an empty queue', async () => {
      const engine = new AnchorEngine(database.knex, new NetworkRegistry([network]));
      const observability = serviceObservability({
        knex: database.knex,
        networks: [network],
        engine,
      });
      const app = apiApp(observability);
      // Queued, not yet anchored: the queue gauges see them.
      const ids = await engine.enqueueAll(database.knex, [
        evidenceRequest('31337'),
        evidenceRequest('31337'),
        evidenceRequest('31337'),
      ]);
      const queued = (await request(app).get('/metrics')).text;
      expect(
        valueOf(queued, 'trustpoint_anchor_queue_records{network="31337",state="queued"}'),
      ).toBe(3);
      expect(
        valueOf(queued, 'trustpoint_anchor_queue_oldest_age_seconds{network="31337"}'),
      ).toBeGreaterThanOrEqual(0);

      engine.start();
      try {
        await Promise.all(ids.map((id) => engine.waitForAnchor(id, 20_000)));
        // Gas and latency are read after the batch settles (a receipt and a query).
        await expect
          .poll(async () =>
            valueOf(
              (await request(app).get('/metrics')).text,
              'trustpoint_anchor_gas_per_record_count{network="31337"}',
            ),
          )
          .toBeGreaterThanOrEqual(1);
        const text = (await request(app).get('/metrics')).text;
        expect(valueOf(text, 'trustpoint_anchor_records_anchored_total{network="31337"}')).toBe(3);
        expect(valueOf(text, 'trustpoint_anchor_batch_size_sum{network="31337"}')).toBe(3);
        expect(valueOf(text, 'trustpoint_anchor_confirmation_seconds_count{network="31337"}')).toBe(
          3,
        );
        const gasSum = valueOf(text, 'trustpoint_anchor_gas_per_record_sum{network="31337"}') ?? 0;
        const gasCount =
          valueOf(text, 'trustpoint_anchor_gas_per_record_count{network="31337"}') ?? 1;
        expect(gasSum / gasCount).toBeGreaterThan(20_000);
        expect(gasSum / gasCount).toBeLessThan(100_000);
        expect(
          valueOf(text, 'trustpoint_anchor_queue_records{network="31337",state="queued"}'),
        ).toBe(0);
        expect(valueOf(text, 'trustpoint_anchor_queue_oldest_age_seconds{network="31337"}')).toBe(
          0,
        );
      } finally {
        observability.close();
        await engine.stop();
      }
    });
  });

  describe('when nothing was ever queued nor refused', () => {
    it('then the queue reports 0 records in each state and the counters 0 records, for every network', async () => {
      // Arrange: a second network besides the chain's, with no record either.
      const other: NetworkConfig = { ...network, networkId: '11155111' };
      const observability = serviceObservability({
        knex: database.knex,
        networks: [network, other],
      });

      // Act
      const text = (await request(apiApp(observability)).get('/metrics')).text;

      // Assert: series with a 0, never "no data", so "wait until it is 0" can end.
      for (const networkId of ['31337', '11155111']) {
        for (const state of ['queued', 'batched']) {
          expect(
            valueOf(
              text,
              `trustpoint_anchor_queue_records{network="${networkId}",state="${state}"}`,
            ),
          ).toBe(0);
        }
        expect(
          valueOf(text, `trustpoint_anchor_records_failed_total{network="${networkId}"}`),
        ).toBe(0);
        expect(
          valueOf(text, `trustpoint_anchor_records_anchored_total{network="${networkId}"}`),
        ).toBe(0);
      }
      observability.close();
    });
  });

  describe('when the webhook worker reports attempts', () => {
    it('then /metrics counts them by outcome with their duration', async () => {
      const observability = serviceObservability({ knex: database.knex, networks: [] });
      observability.onWebhookAttempt({ status: 'delivered', durationMs: 120 });
      observability.onWebhookAttempt({ status: 'pending', durationMs: 10_000 });
      const text = await observability.registry.metrics();
      expect(valueOf(text, 'trustpoint_webhook_attempts_total{outcome="delivered"}')).toBe(1);
      expect(valueOf(text, 'trustpoint_webhook_attempts_total{outcome="pending"}')).toBe(1);
      expect(valueOf(text, 'trustpoint_webhook_attempt_duration_seconds_count')).toBe(2);
    });
  });
});
