import { randomBytes, randomUUID } from 'node:crypto';
import { NetworkRegistry, type AnchorEngine, type NetworkConfig } from '@trustpoint/chain';
import type { LocalChain } from '@trustpoint/contracts';
import type { DatabaseBackend } from '@trustpoint/db';
import type { Asset, Transaction } from '@trustpoint/domain';
import type { OidcIssuerConfig } from '@trustpoint/identity';
import { openTestDatabase, type TestDatabase } from '@trustpoint/test-database';
import {
  createTestUser,
  localWebhookSettings,
  startTestAnchorEngine,
  startTestNetwork,
  tokenFor as testTokenFor,
  type TestNetworkOptions,
} from '@trustpoint/test-kit/fixtures';
import type { WebhookSettings } from '@trustpoint/webhooks';
import pino from 'pino';
import type supertest from 'supertest';
import { createTrackApp } from '../../src/server.js';
import { request } from './checked-request.js';

export const JWT_SECRET = randomBytes(32).toString('base64url');
export const BASE = '/track/v2';
const NAMESPACE = 'trustpoint';

export interface TestUser {
  id: string;
  did: string;
  token: string;
}

/** A tracking API on a real database and a real local chain, with users made per test. */
export interface TrackApiFixture {
  app: ReturnType<typeof createTrackApp>;
  db: TestDatabase;
  chain: LocalChain;
  network: NetworkConfig;
  engine: AnchorEngine;
  /** The webhook settings `app` uses: 127.0.0.1 allowed, for a receiver in the test. */
  webhooks: WebhookSettings;
  /** A new user on a plan with the local network (or none) and `credits`; returns a token. */
  user(options?: { credits?: number; networks?: string[] }): Promise<TestUser>;
  /** Creates an asset for the token's user (201 expected); random assetId unless given. */
  createAsset(token: string, body?: Record<string, unknown>): Promise<Asset>;
  /** Adds an evidence (201 expected). */
  addEvidence(
    token: string,
    trackID: string,
    metadata?: Record<string, unknown>,
  ): Promise<Transaction>;
  /** Shares an asset (200 expected). */
  share(token: string, trackID: string, userDid: string): Promise<void>;
  close(): Promise<void>;
}

/** A token of the service for the user (HS256, as the launcher mints them); seconds to live. */
export function tokenFor(userId: string, secret = JWT_SECRET, expiresIn = 3_600): Promise<string> {
  return testTokenFor(userId, secret, expiresIn);
}

function expectStatus(what: string, expected: number, response: supertest.Response): void {
  if (response.status !== expected) {
    throw new Error(
      `${what}: expected ${String(expected)}, got ${String(response.status)} ${JSON.stringify(response.body)}`,
    );
  }
}

export async function startTrackApi(
  backend: DatabaseBackend,
  options: TestNetworkOptions & {
    anchorTimeoutMs?: number;
    /** External OpenID Connect providers whose tokens the app accepts; none by default. */
    oidcIssuers?: readonly OidcIssuerConfig[];
    /** The services' clock (milliseconds); `Date.now` by default. */
    now?: () => number;
    /** How far evidence timestamps may run ahead of the clock; the services' default (60 s). */
    maxEvidenceAheadSeconds?: number;
  } = {},
): Promise<TrackApiFixture> {
  // The track API reads no revocation status: its network is configured without that registry.
  const { chain, network } = await startTestNetwork({ ...options, withoutStatusRegistry: true });
  const db = await openTestDatabase(backend, { poolMax: 20 });
  const networks = new NetworkRegistry([network]);
  const logger = pino({ level: 'silent' });
  const engine = startTestAnchorEngine(db.knex, networks, {
    logger,
    ...(options.anchorTimeoutMs === undefined ? {} : { anchorTimeoutMs: options.anchorTimeoutMs }),
  });
  const webhooks = localWebhookSettings();
  const app = createTrackApp({
    jwtSecret: JWT_SECRET,
    webhooks,
    ...(options.oidcIssuers === undefined ? {} : { oidcIssuers: options.oidcIssuers }),
    services: {
      knex: db.knex,
      engine,
      networks,
      namespace: NAMESPACE,
      now: options.now ?? Date.now,
      logger,
      ...(options.maxEvidenceAheadSeconds === undefined
        ? {}
        : { maxEvidenceAheadSeconds: options.maxEvidenceAheadSeconds }),
    },
  });
  return {
    app,
    db,
    chain,
    network,
    engine,
    webhooks,
    async user(userOptions) {
      const id = await createTestUser(db.knex, userOptions);
      return { id, did: `did:user:${id}`, token: await tokenFor(id) };
    },
    async createAsset(token, body = {}) {
      const response = await request(app)
        .post(`${BASE}/assets`)
        .set('Authorization', `Bearer ${token}`)
        .send({
          assetId: `asset-${randomUUID()}`,
          data: { id: 'pallet', version: '1' },
          networkId: '31337',
          ...body,
        });
      expectStatus('createAsset', 201, response);
      return response.body.data as Asset;
    },
    async addEvidence(token, trackID, metadata = { step: randomUUID() }) {
      const response = await request(app)
        .post(`${BASE}/assets/${trackID}/transactions`)
        .set('Authorization', `Bearer ${token}`)
        .send({ metadata });
      expectStatus('addEvidence', 201, response);
      return response.body.data as Transaction;
    },
    async share(token, trackID, userDid) {
      const response = await request(app)
        .put(`${BASE}/assets/${trackID}/shares/${encodeURIComponent(userDid)}`)
        .set('Authorization', `Bearer ${token}`);
      expectStatus('share', 200, response);
    },
    async close() {
      await engine.stop();
      await db.close();
      await chain.stop();
    },
  };
}

/** What an outside client gets for one raw `eth_call` POSTed to the node. */
export async function rawEthCall(rpcUrl: string, body: unknown): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.json();
}
