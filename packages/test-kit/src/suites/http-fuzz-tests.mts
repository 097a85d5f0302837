import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '@trustpoint/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CreatedApiKey } from '../fixtures/caller-records.js';
import type { FuzzAuthorization } from '../fuzz/fuzz-request.js';
import {
  operationsWithoutGenerator,
  runHttpFuzz,
  servedOperations,
  type FuzzSettings,
  type HttpFuzzTarget,
} from '../fuzz/run-http-fuzz.js';

/** An API started for the fuzz, and what the fuzz sends it (the port comes from the listener). */
export interface FuzzedService {
  app: RequestListener;
  target: Omit<HttpFuzzTarget, 'port'>;
  stop(): Promise<void>;
}

/**
 * The HTTP fuzz of an API: `start` makes the API and its records; it listens with the server the
 * launcher listens with (its answers to requests Node cannot parse count too). Then every
 * documented operation must have a generator, and the generated requests must each be answered,
 * never with a 5xx, as the document and the error catalogue say, and change nothing when refused;
 * a full run reaches every operation.
 */
export function describeHttpFuzz(options: {
  title: string;
  /** Names the run in its figures and its failures' replay line, e.g. `track-api fuzz`. */
  label: string;
  settings: FuzzSettings;
  /** Fewer documented operations than this means the documents were not read whole. */
  leastOperations: number;
  start(): Promise<FuzzedService>;
}): void {
  describe(options.title, () => {
    let service: FuzzedService;
    let server: Server;
    let target: HttpFuzzTarget;

    beforeAll(async () => {
      service = await options.start();
      server = createApiServer(service.app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      target = { ...service.target, port: (server.address() as AddressInfo).port };
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      await service.stop();
    });

    it('when the served documents are read, then every documented operation has a generator', async () => {
      const { operations } = await servedOperations(target.port, target.apis);

      expect(operations.length).toBeGreaterThan(options.leastOperations);
      expect(operationsWithoutGenerator(operations, target.known)).toEqual([]);
    });

    it('when generated requests are sent, then none is dropped, answered 5xx, answered off the document or catalogue, or changes the state while refused', async () => {
      const { settings, label } = options;
      const outcome = await runHttpFuzz(target, settings, label);

      console.log(`${label} answers by status:`, Object.fromEntries(outcome.casesByStatus));
      if (settings.path === undefined && settings.runs >= 1_000) {
        const unreached = outcome.operations.filter(
          (operation) => !outcome.casesByOperation.has(operation.name),
        );
        expect(unreached.map((operation) => operation.name)).toEqual([]);
      }
    }, 900_000);
  });
}

/**
 * The Authorization headers the fuzz sends as callers, by weight: mostly the main user's token,
 * then a user without credits, any other users, an API key as a bearer and as Basic credentials, a
 * token signed with another secret, and none.
 */
export function callerAuthorizations(callers: {
  main: string;
  poor: string;
  others?: readonly string[];
  key: CreatedApiKey;
  forged: string;
}): FuzzAuthorization[] {
  const { id, key } = callers.key;
  return [
    { weight: 14, value: `Bearer ${callers.main}` },
    { weight: 1, value: `Bearer ${callers.poor}` },
    ...(callers.others ?? []).map((token) => ({ weight: 1, value: `Bearer ${token}` })),
    { weight: 1, value: `Bearer ${key}` },
    { weight: 1, value: `Basic ${Buffer.from(`${id}:${key}`).toString('base64')}` },
    { weight: 1, value: `Bearer ${callers.forged}` },
    { weight: 1, value: undefined },
  ];
}
